#include "views/html_page.h"

#include "html_page_assets.h"  // generated: kHtmlPageJs, kHtmlPageCss
#include "views/text_escape.h"

namespace prof::analyzer {

std::string html_page(const std::string& title, const std::string& data) {
  std::string out;
  out.reserve(data.size() + 64 * 1024);
  out += "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n";
  // No request may leave the page, not even for a favicon.
  out += "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
         "script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:\">\n";
  out += "<link rel=\"icon\" href=\"data:,\">\n<title>" + xml_escape(title) + "</title>\n<style>\n";
  out += kHtmlPageCss;
  out += "</style></head><body>\n<script type=\"application/json\" id=\"prof-data\">";
  for (size_t i = 0; i < data.size(); ++i) {
    out += data[i];
    if (data[i] == '<' && i + 1 < data.size() && data[i + 1] == '/') out += '\\';
  }
  out += "</script>\n<script>\n";
  out += kHtmlPageJs;
  out += "</script></body></html>\n";
  return out;
}

}  // namespace prof::analyzer
