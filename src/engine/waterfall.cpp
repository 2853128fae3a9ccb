#include "engine/waterfall.hpp"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <stdexcept>

namespace snarkpipe::engine {

namespace {

std::string escape(const std::string& s) {
  std::string o;
  for (char c : s) {
    switch (c) {
      case '<':
        o += "&lt;";
        break;
      case '>':
        o += "&gt;";
        break;
      case '&':
        o += "&amp;";
        break;
      case '"':
        o += "&quot;";
        break;
      default:
        o += c;
    }
  }
  return o;
}

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

const char* color(BarKind k) {
  switch (k) {
    case BarKind::SYNTH:
      return "#4e79a7";
    case BarKind::QUEUE:
      return "#d3d3d3";
    case BarKind::GPU:
      return "#e15759";
    case BarKind::FINISH:
      return "#59a14f";
  }
  return "#000";
}

}  // namespace

std::string waterfall_html(const TimelineSnapshot& tl, const std::string& title) {
  const std::vector<Bar> bars = tl.bars();
  // Rows: partitions in the order their first bar starts; lanes: devices.
  std::map<std::pair<JobId, std::uint32_t>, int> row_of;
  std::vector<std::pair<JobId, std::uint32_t>> rows;
  double t_end = 0;
  for (const auto& b : bars) {
    if (row_of.try_emplace({b.job, b.partition}, int(rows.size())).second) rows.push_back({b.job, b.partition});
    t_end = std::max(t_end, b.end);
  }
  const int lanes = int(tl.devices.size());
  const double left = 130, width = 1100, row_h = 14, top = 30;
  const double scale = width / std::max(t_end, 1e-6);
  const double height = top + (lanes + 1 + double(rows.size())) * row_h + 20;
  std::string s;
  s += "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>" + escape(title) + "</title>\n";
  s += "<style>body{font-family:sans-serif;font-size:13px} text{font-size:11px} "
       "table{border-collapse:collapse} td,th{border:1px solid #ccc;padding:2px 6px;text-align:right}</style>\n";
  s += "</head><body>\n<h2>" + escape(title) + "</h2>\n<p>";
  for (BarKind k : {BarKind::SYNTH, BarKind::QUEUE, BarKind::GPU, BarKind::FINISH})
    s += "<span style=\"background:" + std::string(color(k)) + "\">&nbsp;&nbsp;&nbsp;</span> " +
         std::string(bar_name(k)) + " &nbsp; ";
  s += "(time in seconds since the engine started; hover a bar for its numbers)</p>\n";
  s += "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + fmt("%.0f", left + width + 20) + "\" height=\"" +
       fmt("%.0f", height) + "\">\n";
  // Time axis: about ten ticks.
  const double step = [&] {
    double raw = std::max(t_end, 1e-6) / 10, p = 1e-6;
    while (p * 10 <= raw) p *= 10;
    return raw >= 5 * p ? 5 * p : raw >= 2 * p ? 2 * p : p;
  }();
  for (double t = 0; t <= t_end + 1e-12; t += step) {
    const double x = left + t * scale;
    s += "<line x1=\"" + fmt("%.1f", x) + "\" y1=\"" + fmt("%.0f", top - 5) + "\" x2=\"" + fmt("%.1f", x) + "\" y2=\"" +
         fmt("%.0f", height - 20) + "\" stroke=\"#eee\"/>";
    s += "<text x=\"" + fmt("%.1f", x) + "\" y=\"" + fmt("%.0f", top - 8) + "\" text-anchor=\"middle\">" +
         fmt("%.3g", t) + "</text>\n";
  }
  auto rect = [&](const Bar& b, double y, const std::string& cls) {
    const double x = left + b.start * scale, w = std::max((b.end - b.start) * scale, 0.5);
    s += "<rect class=\"" + cls + "\" data-job=\"" + std::to_string(b.job) + "\" data-partition=\"" +
         std::to_string(b.partition) + "\" data-start=\"" + fmt("%.6f", b.start) + "\" data-end=\"" +
         fmt("%.6f", b.end) + "\" x=\"" + fmt("%.2f", x) + "\" y=\"" + fmt("%.1f", y + 1) + "\" width=\"" +
         fmt("%.2f", w) + "\" height=\"" + fmt("%.0f", row_h - 2) + "\" fill=\"" + color(b.kind) + "\"><title>job " +
         std::to_string(b.job) + " partition " + std::to_string(b.partition) + ": " + std::string(bar_name(b.kind)) +
         (b.device >= 0 && b.device < lanes ? " on " + escape(tl.devices[b.device]) : "") + ", " +
         fmt("%.6f", b.start) + " → " + fmt("%.6f", b.end) + " s (" + fmt("%.3f", (b.end - b.start) * 1e3) +
         " ms)</title></rect>\n";
  };
  for (int d = 0; d < lanes; ++d) {
    const double y = top + d * row_h;
    s += "<text x=\"4\" y=\"" + fmt("%.1f", y + row_h - 3) + "\">device " + std::to_string(d) + " " +
         escape(tl.devices[d]) + "</text>\n";
    for (const auto& b : bars)
      if (b.kind == BarKind::GPU && b.device == d) rect(b, y, "lane gpu");
  }
  for (std::size_t r = 0; r < rows.size(); ++r) {
    const double y = top + (lanes + 1 + double(r)) * row_h;
    s += "<text x=\"4\" y=\"" + fmt("%.1f", y + row_h - 3) + "\">job " + std::to_string(rows[r].first) + " / p" +
         std::to_string(rows[r].second) + "</text>\n";
  }
  for (const auto& b : bars)
    rect(b, top + (lanes + 1 + row_of[{b.job, b.partition}]) * row_h, "bar " + std::string(bar_name(b.kind)));
  s += "</svg>\n<h3>Jobs</h3>\n<table><tr><th>job</th><th>state</th><th>latency s</th><th>synth s</th>"
       "<th>queue s</th><th>device s</th><th>finish s</th></tr>\n";
  for (const auto& t : tl.totals())
    s += "<tr><td>" + std::to_string(t.job) + "</td><td>" + std::string(state_name(t.state)) + "</td><td>" +
         fmt("%.4f", t.latency) + "</td><td>" + fmt("%.4f", t.synth) + "</td><td>" + fmt("%.4f", t.queue) +
         "</td><td>" + fmt("%.4f", t.gpu) + "</td><td>" + fmt("%.4f", t.finish) + "</td></tr>\n";
  s += "</table>\n</body></html>\n";
  return s;
}

void write_waterfall(const TimelineSnapshot& timeline, const std::string& title, const std::string& path) {
  std::ofstream f(path);
  if (!f) throw std::runtime_error("cannot write the timeline to " + path);
  f << waterfall_html(timeline, title);
  if (!f) throw std::runtime_error("error writing the timeline to " + path);
}

}  // namespace snarkpipe::engine
