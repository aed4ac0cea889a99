#pragma once
// The report's rows as exact cells for csv and json: every column, whatever
// the text table would show, so the schema does not change with the data.
#include <vector>

#include "views/key_averages.h"
#include "views/table_formatter.h"
#include "views/view_table.h"

namespace prof::analyzer {

// `rows` are the printed rows (select_rows); shares divide by `totals`.
ViewTable key_average_cells(const std::vector<KeyAverage>& rows, const TableTotals& totals);

}  // namespace prof::analyzer
