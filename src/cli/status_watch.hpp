// `cuzk status --watch`'s picture of the daemon, as pure functions of its status document
// (GetStatus's status_json, the same as GET /status): no I/O, no clock, so that tests can lay out
// a fixed document. status_watch_loop.cpp fetches the document, sizes the terminal and draws.
#pragma once

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

namespace cuzk::cli {

// The daemon's state in lines of plain text, none wider than `width` columns (0: no limit, laid
// out as for 100): a summary with the budget's bar, every job running or queued and the 5 latest
// ended ones (kind, request id, priority, state, a bar of its partitions by stage, elapsed time,
// error), the tracked buffers by stage and class, the devices, the resident parameter sets.
// Control characters in the document's strings (a job's error text) become '?', so that no line
// carries an escape code.
// A document without a job list (an older daemon) gets its jobs from its partitions.
std::vector<std::string> render_status(const nlohmann::json& doc, size_t width);

// The lines of a daemon that does not answer (the loop keeps asking): what failed, since when.
std::vector<std::string> render_unreachable(const std::string& addr, const std::string& error, const std::string& since,
                                            size_t width);

// A frame drawn over the last one on a terminal: cursor home, each line cleared to its end, the
// rest of the screen cleared. At most `rows` lines (0: no limit): the last kept says how many
// did not fit. No newline after the last line, so that a full screen does not scroll.
std::string terminal_frame(const std::vector<std::string>& lines, size_t rows);
// A snapshot for a pipe or file: the header line, the lines, a blank line; no escape codes.
std::string plain_frame(const std::string& header, const std::vector<std::string>& lines);

// The pieces, for the tests.
// "[###==..   ]": `cells` characters between brackets, each segment (character, count) given
// its share of total, left to right; what the segments leave of total stays blank.
std::string progress_bar(const std::vector<std::pair<char, uint64_t>>& segments, uint64_t total, size_t cells);
std::string human_bytes(double bytes);     // "512 B", "1.5 KiB", "12.0 MiB", "1.25 GiB"
std::string human_duration(double secs);   // "4.2s", "5m07s", "2h03m", "3d04h"
std::string priority_text(int64_t value);  // the daemon's level * 1000 + offset: "normal", "high+5"
// text cut to `width` columns (0: kept whole) at a character boundary, ending "..." when cut;
// control characters become '?'.
std::string fit(const std::string& text, size_t width);

}  // namespace cuzk::cli
