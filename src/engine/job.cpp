#include "engine/job.hpp"

#include <algorithm>
#include <cctype>

namespace snarkpipe::engine {

std::string_view priority_name(Priority p) {
  switch (p) {
    case Priority::LOW:
      return "low";
    case Priority::NORMAL:
      return "normal";
    case Priority::HIGH:
      return "high";
    case Priority::CRITICAL:
      return "critical";
  }
  return "?";
}

std::optional<Priority> parse_priority(std::string_view name) {
  std::string s(name);
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  for (Priority p : {Priority::LOW, Priority::NORMAL, Priority::HIGH, Priority::CRITICAL})
    if (s == priority_name(p)) return p;
  return std::nullopt;
}

std::string_view state_name(JobState s) {
  switch (s) {
    case JobState::QUEUED:
      return "queued";
    case JobState::RUNNING:
      return "running";
    case JobState::DONE:
      return "done";
    case JobState::FAILED:
      return "failed";
    case JobState::CANCELLED:
      return "cancelled";
  }
  return "?";
}

}  // namespace snarkpipe::engine
