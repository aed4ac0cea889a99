#pragma once
// The report's rows as exact cells for csv and json: every column, whatever
// the text table would show, so the schema does not change with the data.
#include <vector>

#include "views/KeyAverages.h"
#include "views/TableFormatter.h"
#include "views/ViewTable.h"

namespace prof::analyzer {

// `rows` are the printed rows (selectRows); shares divide by `totals`.
ViewTable keyAverageCells(const std::vector<KeyAverage>& rows, const TableTotals& totals);

}  // namespace prof::analyzer
