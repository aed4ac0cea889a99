// torch's table: time and share formatting, widths, alignment, truncation,
// sort keys, row limit, CUDA columns.
#include <catch2/catch.hpp>
#include <sstream>

#include "views/sort_key.h"
#include "views/table_formatter.h"
#include "views/time_format.h"

using namespace prof::analyzer;

namespace {

KeyAverage row(std::string key, uint64_t count, uint64_t total_ns, uint64_t self_ns) {
  KeyAverage r;
  r.key = std::move(key);
  r.count = count;
  r.cpu_total_ns = total_ns;
  r.self_cpu_ns = self_ns;
  return r;
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

// The names of the table's rows, in order (first cell, trimmed).
std::vector<std::string> row_names(const std::string& table) {
  std::vector<std::string> out;
  auto all = lines(table);
  for (size_t i = 3; i < all.size() && all[i][0] != '-'; ++i) {
    std::istringstream cells(all[i]);
    std::string name;
    cells >> name;
    out.push_back(name);
  }
  return out;
}

}  // namespace

TEST_CASE("Times print like torch: us below 1e3, ms below 1e6, else s, three decimals", "[views][time]") {
  CHECK(format_time(0) == "0.000us");
  CHECK(format_time(1.2345) == "1.234us");  // %.3f rounding of the binary value, as Python does
  CHECK(format_time(999.999) == "999.999us");
  CHECK(format_time(1000) == "1.000ms");
  CHECK(format_time(999'999) == "999.999ms");
  CHECK(format_time(1'000'000) == "1.000s");
  CHECK(format_time(123'456'789) == "123.457s");
  CHECK(format_time_ns(1'500) == "1.500us");
  CHECK(format_time_ns(999'999) == "999.999us");
  CHECK(format_time_ns(1'000'000) == "1.000ms");
}

TEST_CASE("A forced time unit applies to every magnitude", "[views][time]") {
  CHECK(format_time(1.5, TimeUnit::kMilliseconds) == "0.002ms");
  CHECK(format_time(2'000'000, TimeUnit::kMilliseconds) == "2000.000ms");
  CHECK(format_time(2'000'000, TimeUnit::kMicroseconds) == "2000000.000us");
  CHECK(format_time(500, TimeUnit::kSeconds) == "0.001s");
  CHECK(parse_time_unit("ms") == TimeUnit::kMilliseconds);
  CHECK_FALSE(parse_time_unit("ns"));
}

TEST_CASE("Shares print with two decimals and NaN for a zero total", "[views][time]") {
  CHECK(format_share(1, 3) == "33.33%");
  CHECK(format_share(3, 3) == "100.00%");
  CHECK(format_share(0, 0) == "NaN");
}

TEST_CASE("The table has torch's layout: right-aligned cells, 12-wide columns, two spaces after each",
          "[views][table]") {
  const std::string table = TableFormatter({}).format({row("ab", 2, 3'000, 1'000), row("abcdef", 1, 2'000, 2'000)});
  const auto l = lines(table);
  REQUIRE(l.size() == 7);
  const size_t name_width = 6 + 4;  // longest name + 4
  const std::string sep = std::string(name_width, '-') + "  " + [] {
    std::string s;
    for (int i = 0; i < 6; ++i) s += std::string(12, '-') + "  ";
    return s;
  }();
  CHECK(l[0] == sep);
  CHECK(l[1] ==
        "      Name    Self CPU %      Self CPU   CPU total %     CPU total  CPU time avg    # of Calls  ");
  CHECK(l[2] == sep);
  CHECK(l[3] ==
        "        ab        33.33%       1.000us       100.00%       3.000us       1.500us             2  ");
  CHECK(l[4] ==
        "    abcdef        66.67%       2.000us        66.67%       2.000us       2.000us             1  ");
  CHECK(l[5] == sep);
  CHECK(l[6] == "Self CPU time total: 3.000us");
  CHECK(table.back() == '\n');
}

TEST_CASE("Names of 52 characters or more are cut to 52 plus ..., the column to 55", "[views][table]") {
  const std::string n51(51, 'a'), n52(52, 'b'), n60(60, 'c');
  CHECK(truncate_name(n51) == n51);
  CHECK(truncate_name(n52) == n52 + "...");
  CHECK(truncate_name(n60) == std::string(52, 'c') + "...");
  CHECK(truncate_name("é" + std::string(51, 'x')) == "é" + std::string(51, 'x') + "...");  // characters, not bytes

  const auto l = lines(TableFormatter({}).format({row(n60, 1, 1, 1)}));
  CHECK(l[0].substr(0, 57) == std::string(55, '-') + "  ");
  CHECK(l[3].substr(0, 57) == std::string(52, 'c') + "...  ");
  const auto short_table = lines(TableFormatter({}).format({row(n51, 1, 1, 1)}));
  CHECK(short_table[3].substr(0, 57) == "    " + n51 + "  ");  // width 55, right-aligned
}

TEST_CASE("Sort keys sort descending and keep first-occurrence order among ties", "[views][sort]") {
  std::vector<KeyAverage> rows = {row("first", 1, 100, 10), row("second", 4, 200, 5), row("third", 2, 100, 50),
                                  row("fourth", 1, 400, 10)};
  auto sorted = [&](const char* key) {
    TableOptions o;
    o.sort_by = key;
    return row_names(TableFormatter(o).format(rows));
  };
  using V = std::vector<std::string>;
  CHECK(row_names(TableFormatter({}).format(rows)) == V{"first", "second", "third", "fourth"});
  CHECK(sorted("cpu_time_total") == V{"fourth", "second", "first", "third"});
  CHECK(sorted("self_cpu_time_total") == V{"third", "first", "fourth", "second"});
  CHECK(sorted("cpu_time") == V{"fourth", "first", "second", "third"});  // averages: 400, 100, 50, 50
  CHECK(sorted("count") == V{"second", "third", "first", "fourth"});
  // No CUDA or memory data yet: every row sorts as 0, order unchanged.
  for (const char* key : {"cuda_time", "cuda_time_total", "self_cuda_time_total", "cpu_memory_usage",
                          "cuda_memory_usage", "self_cpu_memory_usage", "self_cuda_memory_usage",
                          "device_time_total"})
    CHECK(sorted(key) == V{"first", "second", "third", "fourth"});
  CHECK_FALSE(sort_value("bogus", rows[0]));
}

TEST_CASE("Sorting by CUDA keys uses GPU time once there is some", "[views][sort]") {
  std::vector<KeyAverage> rows = {row("cpu", 1, 100, 100), row("kernel", 1, 0, 0)};
  rows[1].is_gpu = true;
  rows[1].cuda_total_ns = rows[1].self_cuda_ns = 50;
  TableOptions o;
  o.sort_by = "self_cuda_time_total";
  CHECK(row_names(TableFormatter(o).format(rows)) == std::vector<std::string>{"kernel", "cpu"});
}

TEST_CASE("Row limit: -1 prints all rows, 0 none, N the first N; 100 by default", "[views][table]") {
  std::vector<KeyAverage> rows;
  for (int i = 0; i < 150; ++i) rows.push_back(row(std::string("r").append(std::to_string(i)), 1, 10, 10));
  auto count = [&](int64_t limit) {
    TableOptions o;
    o.row_limit = limit;
    return row_names(TableFormatter(o).format(rows)).size();
  };
  CHECK(count(-1) == 150);
  CHECK(count(0) == 0);
  CHECK(count(3) == 3);
  CHECK(row_names(TableFormatter({}).format(rows)).size() == 100);
  // The footer still totals every row, shown or not.
  TableOptions none;
  none.row_limit = 0;
  CHECK_THAT(TableFormatter(none).format(rows), Catch::EndsWith("Self CPU time total: 1.500us\n"));
}

TEST_CASE("CUDA columns and footer appear only when some row has self CUDA time", "[views][table]") {
  std::vector<KeyAverage> rows = {row("launch", 1, 100, 100)};
  const std::string cpu_only = TableFormatter({}).format(rows);
  CHECK_THAT(cpu_only, !Catch::Contains("CUDA"));
  rows[0].self_cuda_ns = rows[0].cuda_total_ns = 2'000;
  KeyAverage k = row("kern", 1, 0, 0);
  k.is_gpu = true;
  k.self_cuda_ns = k.cuda_total_ns = 2'000;
  rows.push_back(k);
  const auto l = lines(TableFormatter({}).format(rows));
  CHECK(l[1] == "      Name    Self CPU %      Self CPU   CPU total %     CPU total  CPU time avg     Self CUDA   "
                "Self CUDA %    CUDA total  CUDA time avg    # of Calls  ");
  // Self CUDA % divides by the GPU rows' sum only: the launch's 2us is not counted twice.
  CHECK(l[4] == "      kern         0.00%       0.000us         0.00%       0.000us       0.000us       2.000us       "
                "100.00%       2.000us       2.000us             1  ");
  CHECK(l[l.size() - 1] == "Self CUDA time total: 2.000us");
}

TEST_CASE("A forced time unit applies to the cells and the footer", "[views][table]") {
  TableOptions o;
  o.time_unit = TimeUnit::kMilliseconds;
  const std::string table = TableFormatter(o).format({row("x", 1, 1'500'000'000, 500)});
  CHECK_THAT(table, Catch::Contains("1500.000ms"));
  CHECK_THAT(table, Catch::Contains("0.001ms"));
  CHECK_THAT(table, Catch::EndsWith("Self CPU time total: 0.001ms\n"));
}
