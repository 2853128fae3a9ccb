// The waterfall picture of a timeline: a self-contained HTML page (inline SVG, no scripts)
// with one row per partition (synthesis, queue wait, device, finish bars on a shared time
// axis), one lane per device showing when it was busy, and a table of per-job totals.
// Every bar is an SVG rect with class "bar <kind>" and data-job / data-partition /
// data-start / data-end attributes, and a tooltip, so a person can read it and a test can
// parse it.
#pragma once

#include <string>

#include "engine/timeline.hpp"

namespace snarkpipe::engine {

std::string waterfall_html(const TimelineSnapshot& timeline, const std::string& title);
// Throws std::runtime_error when the file cannot be written.
void write_waterfall(const TimelineSnapshot& timeline, const std::string& title, const std::string& path);

}  // namespace snarkpipe::engine
