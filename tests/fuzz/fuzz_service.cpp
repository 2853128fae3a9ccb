// The daemon's request bodies (service/service.hpp), without the network: the routes'
// public entry points Service::register_circuit (POST /v1/circuits) and Service::submit
// (POST /v1/jobs) take the body string, job and cancel (GET/DELETE /v1/jobs/{id}) the id
// from the path, circuit_info (GET /v1/circuits/{name}) the name. The first input byte picks
// the route (its value mod 5: register, submit, job, cancel, circuit_info), the rest is the
// body, id or name.
// Rejections: BadRequest (std::invalid_argument, answered 400) and NotFound
// (std::runtime_error, 404).
//
// One engine and one Service (fuzz_daemon.hpp) for the whole run; every accepted job is
// looked up and cancelled at once.
#include <string>
#include "fuzz_common.hpp"
#include "fuzz_daemon.hpp"

using namespace snarkpipe;
using nlohmann::json;

namespace {

service::Service& the_service() {
  static service::Service* s = [] {
    service::Service* svc = nullptr;
    (void)fuzz::start_daemon(svc, {});
    return svc;
  }();
  return *s;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  service::Service& svc = the_service();
  const std::string rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (data[0] % 5) {
    case 0:
      fuzz::expect_rejection_or_success([&] { (void)svc.register_circuit(rest).dump(); });
      break;
    case 1:
      fuzz::expect_rejection_or_success([&] {
        const json r = svc.submit(rest);
        const std::string id = std::to_string(r.at("id").get<std::uint64_t>());
        (void)svc.job(id).dump();
        (void)svc.cancel(id).dump();
      });
      break;
    case 2:
      fuzz::expect_rejection_or_success([&] { (void)svc.job(rest).dump(); });
      break;
    case 3:
      fuzz::expect_rejection_or_success([&] { (void)svc.cancel(rest).dump(); });
      break;
    default:
      fuzz::expect_rejection_or_success([&] { (void)svc.circuit_info(rest).dump(); });
      break;
  }
  return 0;
}
