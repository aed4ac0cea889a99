// Escaping of names from the traced program, and the flame graph SVG.
#include <catch2/catch.hpp>

#include <sstream>

#include "views/flame_graph_svg.h"
#include "views/text_escape.h"

using namespace prof::analyzer;

TEST_CASE("JSON strings escape quotes, backslashes and control characters, and repair bad UTF-8") {
  std::string out;
  append_json_string(out, "a\"b\\c\n\t\x01 \xC3\xA9 \xE2\x82\xAC");
  CHECK(out == "\"a\\\"b\\\\c\\n\\t\\u0001 \xC3\xA9 \xE2\x82\xAC\"");
  out.clear();
  append_json_string(out, std::string("x\xFFy\xC3", 4));  // a stray byte, a cut sequence
  CHECK(out == "\"x\xEF\xBF\xBDy\xEF\xBF\xBD\"");
  out.clear();
  append_json_string(out, "\xED\xA0\x80");  // a UTF-16 surrogate is no UTF-8
  CHECK(out == "\"\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\"");
}

TEST_CASE("XML text escapes markup and drops characters XML 1.0 forbids") {
  CHECK(xml_escape("a<b>&\"c'\x02") == "a&lt;b&gt;&amp;&quot;c&apos;?");
  CHECK(valid_utf8("ok \xF0\x9F\x94\xA5") == "ok \xF0\x9F\x94\xA5");
  CHECK(valid_utf8("\xC0\xAF") == "\xEF\xBF\xBD\xEF\xBF\xBD");  // overlong '/'
}

TEST_CASE("the flame graph draws every root-level frame, even a tiny one, with value and percent") {
  std::vector<FoldedStack> stacks = {
      {"main;train;matmul<float>", 9'000'000'000},
      {"main;load", 1'000'000'000},
      {"tiny", 1'000},  // 1 us of 10 s: far below 0.1 px, still drawn
  };
  FlameGraphOptions options;
  options.title = "A & B";
  std::ostringstream out;
  write_flame_graph_svg(stacks, options, out);
  const std::string svg = out.str();
  CHECK(svg.rfind("<?xml", 0) == 0);
  CHECK(svg.find("<title>main (10,000,000 us, 100.00%)</title>") != std::string::npos);
  CHECK(svg.find("<title>tiny (1 us, 0.00%)</title>") != std::string::npos);
  CHECK(svg.find("<title>matmul&lt;float&gt; (9,000,000 us, 90.00%)</title>") != std::string::npos);
  CHECK(svg.find("<title>all (10,000,001 us, 100.00%)</title>") != std::string::npos);
  CHECK(svg.find(">A &amp; B</text>") != std::string::npos);
  CHECK(svg.find("<script type=\"text/ecmascript\"><![CDATA[") != std::string::npos);
  CHECK(svg.find("http://") == svg.find("http://www.w3.org/2000/svg"));  // no other external reference
  CHECK(svg.find("href") == std::string::npos);
}

TEST_CASE("an empty flame graph is still a valid drawing") {
  std::ostringstream out;
  write_flame_graph_svg({}, FlameGraphOptions{}, out);
  CHECK(out.str().find("<title>all (0 us, 0.00%)</title>") != std::string::npos);
  CHECK(out.str().find("</svg>") != std::string::npos);
}
