#pragma once
// `profanalyze html`: one self-contained page (no network request: our own
// CSS, JavaScript and SVG inlined) that draws the JSON `data` it carries.
// The page's script and style are analyzer/views/html_page.js and .css,
// inlined at build time.

#include <string>

namespace prof::analyzer {

// `data` is one JSON object (cli/html_command.cpp lists its keys); "</" in
// it is written "<\/" so no string can close the script element.
std::string html_page(const std::string& title, const std::string& data);

}  // namespace prof::analyzer
