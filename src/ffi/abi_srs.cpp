// create_SRS / clone_SRS / drop_SRS / evict_SRS: the half of supraseal-c2's ABI that both
// libraries export unchanged.
#include "ffi/adapter.hpp"

using namespace snarkpipe::ffi;

namespace {
LoadedSrs* loaded(const SRS& srs) { return static_cast<LoadedSrs*>(srs.ptr); }
}  // namespace

extern "C" {

RustError create_SRS(SRS& ret, const char* path, bool cache) {
  ret.ptr = nullptr;
  return guarded([&] { ret.ptr = load_srs(path, cache); });
}

SRS clone_SRS(const SRS& srs) { return SRS{add_reference(loaded(srs))}; }

void drop_SRS(SRS& srs) {
  try {
    drop_reference(loaded(srs));
  } catch (...) {  // freeing must not throw across the ABI; a failing release leaks instead
  }
  srs.ptr = nullptr;
}

void evict_SRS(const SRS& srs) {
  try {
    evict(loaded(srs));
  } catch (...) {}
}

}  // extern "C"
