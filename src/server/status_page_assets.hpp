// The status page's files (src/server/status_page/), built into the binary at build time
// (status_page/embed_assets.cmake writes them out as byte arrays): "/" is index.html, every other
// file is "/ui/<name>". The page needs nothing else: no CDN, no fonts, no framework.
#pragma once

#include <string_view>

namespace cuzk::server {

struct StatusPageAsset {
  std::string_view path;          // "/" or "/ui/page.js"
  std::string_view content_type;  // by the file's extension
  std::string_view body;
};

// The asset served at this path; nullptr when there is none.
const StatusPageAsset* find_status_page_asset(std::string_view path);

}  // namespace cuzk::server
