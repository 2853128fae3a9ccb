#include "service/http_gate.hpp"

#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <deque>
#include <stdexcept>
#include <string_view>
#include <thread>

#include <nlohmann/json.hpp>

#include "service/answer_counter.hpp"

namespace snarkpipe::service {

using Clock = std::chrono::steady_clock;

class TlsContext {
 public:
  explicit TlsContext(SSL_CTX* ctx) : ctx_(ctx) {}
  ~TlsContext() { SSL_CTX_free(ctx_); }
  TlsContext(const TlsContext&) = delete;
  TlsContext& operator=(const TlsContext&) = delete;
  SSL_CTX* get() const { return ctx_; }

 private:
  SSL_CTX* ctx_;
};

std::shared_ptr<TlsContext> load_tls(const std::string& cert_pem, const std::string& key_pem) {
  SSL_CTX* ctx = SSL_CTX_new(TLS_server_method());
  if (!ctx) throw std::runtime_error("TLS: OpenSSL cannot make a server context");
  auto holder = std::make_shared<TlsContext>(ctx);
  SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
  SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
  if (SSL_CTX_use_certificate_chain_file(ctx, cert_pem.c_str()) != 1 ||
      SSL_CTX_use_PrivateKey_file(ctx, key_pem.c_str(), SSL_FILETYPE_PEM) != 1 || SSL_CTX_check_private_key(ctx) != 1) {
    ERR_clear_error();
    throw std::runtime_error("TLS: cannot load the certificate " + cert_pem + " and key " + key_pem +
                             " (PEM files, the key matching the certificate)");
  }
  return holder;
}

namespace {

// The answer the relay gives a head it refuses: the API's error shape, and the connection ends.
std::string error_response(int status, const std::string& why) {
  const char* reason = status == 408   ? "Request Timeout"
                       : status == 431 ? "Request Header Fields Too Large"
                                       : "Bad Request";
  const std::string body =
      nlohmann::json{{"error", why}}.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  return "HTTP/1.1 " + std::to_string(status) + " " + reason +
         "\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: " + std::to_string(body.size()) +
         "\r\n\r\n" + body;
}

// The client's side of the connection, plain or TLS, non-blocking. read/write give the byte
// count, 0 at the end of the stream (read only), or -1 when they would block (then `wants`
// holds the poll events to wait for), or -2 on an error.
class ClientIo {
 public:
  ClientIo(int fd, SSL_CTX* tls) : fd_(fd) {
    if (tls) {
      ssl_ = SSL_new(tls);
      if (ssl_) SSL_set_fd(ssl_, fd);
    }
  }
  ~ClientIo() {
    if (ssl_) SSL_free(ssl_);
  }
  ClientIo(const ClientIo&) = delete;
  ClientIo& operator=(const ClientIo&) = delete;
  bool tls() const { return ssl_ != nullptr; }
  bool pending() const { return ssl_ && SSL_pending(ssl_) > 0; }

  // The TLS handshake, until `deadline`; plain connections have none.
  bool handshake(Clock::time_point deadline) {
    if (!ssl_) return true;
    for (;;) {
      const int r = SSL_accept(ssl_);
      if (r == 1) return true;
      short wants = 0;
      if (!would_block(r, wants)) return false;
      if (!wait(wants, deadline)) return false;
    }
  }
  long read(char* buf, std::size_t n, short& wants) {
    if (!ssl_) {
      const ssize_t r = ::recv(fd_, buf, n, 0);
      if (r >= 0) return long(r);
      if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) {
        wants = POLLIN;
        return -1;
      }
      return -2;
    }
    const int r = SSL_read(ssl_, buf, int(std::min<std::size_t>(n, 1 << 30)));
    if (r > 0) return r;
    if (SSL_get_error(ssl_, r) == SSL_ERROR_ZERO_RETURN) return 0;
    return would_block(r, wants) ? -1 : -2;
  }
  long write(const char* buf, std::size_t n, short& wants) {
    if (!ssl_) {
      const ssize_t r = ::send(fd_, buf, n, MSG_NOSIGNAL);
      if (r >= 0) return long(r);
      if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) {
        wants = POLLOUT;
        return -1;
      }
      return -2;
    }
    const int r = SSL_write(ssl_, buf, int(std::min<std::size_t>(n, 1 << 30)));
    if (r > 0) return r;
    return would_block(r, wants) ? -1 : -2;
  }
  void close_notify() {
    if (ssl_) SSL_shutdown(ssl_);
  }
  // Waits for `events` on the socket until `deadline`.
  bool wait(short events, Clock::time_point deadline) const {
    for (;;) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
      if (left <= 0) return false;
      pollfd p{fd_, events, 0};
      const int r = ::poll(&p, 1, int(std::min<long long>(left, 1000)));
      if (r > 0) return (p.revents & (POLLERR | POLLNVAL)) == 0 || (p.revents & events);
      if (r < 0 && errno != EINTR) return false;
    }
  }

 private:
  bool would_block(int r, short& wants) const {
    const int e = SSL_get_error(ssl_, r);
    ERR_clear_error();
    if (e == SSL_ERROR_WANT_READ) wants = POLLIN;
    else if (e == SSL_ERROR_WANT_WRITE) wants = POLLOUT;
    else return false;
    return true;
  }
  int fd_;
  SSL* ssl_ = nullptr;
};

void set_nonblocking(int fd) { ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL, 0) | O_NONBLOCK); }

// A connection to the routes' socket, or -1.
int connect_routes(const std::string& path) {
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::memcpy(addr.sun_path, path.c_str(), std::min(path.size() + 1, sizeof addr.sun_path));
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    ::close(fd);
    return -1;
  }
  set_nonblocking(fd);
  return fd;
}

// Relays one connection between the client (`client`, plain or TLS) and httplib (connections
// to the routes' socket at `routes`), then ends the client's. The routes are connected when a
// request is ready to go on: httplib's keep-alive clock does not run while a head arrives. When
// httplib ends a connection (its keep-alive ran out, or it closed after an answer), the next
// request connects again, and a client with no request under way is closed, as httplib would.
void relay(int client, const std::string& routes, const GateLimits& limits, SSL_CTX* tls) {
  set_nonblocking(client);
  // The relay passes an answer on in the pieces httplib writes (head, then body): with Nagle's
  // algorithm the second waited for the client's delayed ACK, ~40 ms on every answer.
  const int nodelay = 1;
  ::setsockopt(client, IPPROTO_TCP, TCP_NODELAY, &nodelay, sizeof nodelay);
  ClientIo io(client, tls);
  RequestFramer framer(limits);
  AnswerCounter answers;
  // Requests framed but not yet gone on (where each starts in `up`): httplib reads a request
  // into a buffer it drops after answering, so a request pipelined behind another would be
  // lost; each goes on once httplib has answered every one before it.
  std::deque<RequestFramer::Forwarded> held;
  constexpr std::size_t CHUNK = 16 << 10;
  std::string up, down;  // bytes on their way to httplib, and to the client
  std::size_t up_at = 0, down_at = 0;
  int server = -1;
  bool client_done = false;  // no more of the client's bytes will be read
  bool server_write_shut = false, client_broken = false;
  char buf[CHUNK];

  if (!io.handshake(Clock::now() + limits.header_timeout)) client_done = client_broken = true;
  for (;;) {
    if (server < 0 && up_at < up.size()) {
      server = connect_routes(routes);
      server_write_shut = false;
      if (server < 0) client_done = client_broken = true;  // the daemon is stopping
    }
    // The client is done and all it sent has gone on: httplib's connection ends too. httplib
    // drops an answer when it sees the stream's end beside a request it has read, so that
    // connection is closed only once httplib owes no answer (and the relay has passed every
    // byte on), or at once when the client is gone; a request cut short in its body gets a
    // half-close instead, which httplib reads as the body's end. Not after the connection's
    // last request: httplib closes after answering that one itself.
    if (client_broken) break;
    if (server >= 0 && client_done && up_at == up.size() && !framer.finished()) {
      if (framer.between_requests() && answers.owed() == 0 && down_at == down.size()) break;
      if (!framer.between_requests() && !server_write_shut) {
        ::shutdown(server, SHUT_WR);
        server_write_shut = true;
      }
    }
    short client_events = 0, server_events = 0;
    short read_wants = 0, write_wants = 0;
    bool progressed = false;
    // Client → httplib.
    if (!client_done && up_at == up.size()) {
      up.clear();
      up_at = 0;
      const long r = io.read(buf, CHUNK, read_wants);
      if (r > 0) {
        progressed = true;
        if (!framer.feed(buf, std::size_t(r), up)) client_done = true;
        for (const auto& f : framer.take_forwarded()) held.push_back(f);
      } else if (r == 0 || r == -2) {
        client_done = true;
        client_broken = r == -2;
        progressed = true;  // httplib is told of the end at once, not after a poll's timeout
      } else {
        client_events |= read_wants;
      }
    }
    while (!held.empty() && up_at == held.front().at && answers.owed() == 0) {
      answers.expect(held.front().head_method);
      held.pop_front();
    }
    const std::size_t up_to = held.empty() ? up.size() : held.front().at;
    if (server >= 0 && up_at < up_to) {
      const ssize_t w = ::send(server, up.data() + up_at, up_to - up_at, MSG_NOSIGNAL);
      if (w > 0) {
        up_at += std::size_t(w);
        progressed = true;
      } else if (w < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
        up_at = up.size();  // httplib closed its end: it has finished with this connection
        held.clear();
      } else {
        server_events |= POLLOUT;
      }
    }
    // httplib → client.
    bool server_ended = false;
    if (server >= 0 && down_at == down.size()) {
      down.clear();
      down_at = 0;
      const ssize_t r = ::recv(server, buf, CHUNK, 0);
      if (r > 0) {
        down.assign(buf, std::size_t(r));
        answers.feed(buf, std::size_t(r));
        progressed = true;
      } else if (r == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
        server_ended = true;
      } else {
        server_events |= POLLIN;
      }
    }
    if (down_at < down.size() && !client_broken) {
      const long w = io.write(down.data() + down_at, down.size() - down_at, write_wants);
      if (w > 0) {
        down_at += std::size_t(w);
        progressed = true;
      } else if (w == -2) {
        client_broken = client_done = true;
        down_at = down.size();
      } else {
        client_events |= write_wants;
      }
    } else if (client_broken) {
      down_at = down.size();
    }
    if (server_ended) {
      ::close(server);
      server = -1;
      // httplib closing mid-request (it answered without reading the whole body) ends the
      // connection: the rest is dropped. Between requests (its keep-alive ran out while a
      // head arrives), the next request goes on a new connection; with no head under way,
      // httplib's end is the connection's end.
      if (client_done || !framer.between_requests() || up_at < up.size() || !framer.in_head()) break;
      answers = AnswerCounter{};  // a new connection owes nothing yet
      progressed = true;
    }
    if (server < 0 && client_done && up_at == up.size()) break;
    // A head must be whole within the header deadline, however its bytes trickle in.
    int timeout_ms = 1000;
    if (framer.in_head() && !client_done) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(framer.head_started() +
                                                                              limits.header_timeout - Clock::now())
                            .count();
      if (left <= 0) {
        framer.time_out();
        client_done = true;
        continue;
      }
      timeout_ms = int(std::min<long long>(left, timeout_ms));
    }
    if (progressed || (!client_done && up_at == up.size() && io.pending())) continue;
    // Nothing moved: wait for either side.
    pollfd fds[2];
    nfds_t n = 0;
    if (server >= 0 && server_events) fds[n++] = {server, server_events, 0};
    if (client_events) fds[n++] = {client, client_events, 0};
    ::poll(fds, n, timeout_ms);
  }
  if (server >= 0) ::close(server);
  // A head the relay refused is answered after the answers to the requests before it.
  if (!client_broken && framer.refusal().status && framer.refused_in_head()) {
    const std::string answer = error_response(framer.refusal().status, framer.refusal().error);
    std::size_t at = 0;
    const auto until = Clock::now() + std::chrono::seconds(5);
    while (at < answer.size()) {
      short wants = 0;
      const long w = io.write(answer.data() + at, answer.size() - at, wants);
      if (w > 0) at += std::size_t(w);
      else if (w == -2 || !io.wait(wants, until)) break;
    }
  }
  if (!client_broken) {
    io.close_notify();
    ::shutdown(client, SHUT_WR);
    // A lingering close: what the client still sends is read and dropped for a moment, so
    // that closing with unread bytes does not reset the connection before it reads the answer.
    const auto until = Clock::now() + std::chrono::milliseconds(500);
    std::size_t dropped = 0;
    while (dropped < (std::size_t(1) << 20) && io.wait(POLLIN, until)) {
      const ssize_t r = ::recv(client, buf, CHUNK, 0);
      if (r <= 0) break;
      dropped += std::size_t(r);
    }
  }
}

}  // namespace

// httplib's server, used for its accept loop and thread pool only: every connection it accepts
// goes to the relay instead of its own request parsing (a private virtual, overridden).
class GatedServer : public httplib::Server {
 public:
  GatedServer(GateLimits limits, std::shared_ptr<TlsContext> tls, std::string routes_socket)
      : limits_(limits), tls_(std::move(tls)), routes_socket_(std::move(routes_socket)) {}

 private:
  bool process_and_close_socket(socket_t sock) override {
    relay(sock, routes_socket_, limits_, tls_ ? tls_->get() : nullptr);
    ::close(sock);
    return true;
  }

  GateLimits limits_;
  std::shared_ptr<TlsContext> tls_;
  std::string routes_socket_;
};

namespace {

// Runs server.listen_after_bind() on a thread, once the server is running.
std::thread listen_on(httplib::Server& server) {
  auto returned = std::make_shared<std::atomic<bool>>(false);
  std::thread t([&server, returned] {
    server.listen_after_bind();
    *returned = true;
  });
  // stop() only reaches a server that is running; wait for it, so a stop() right after start()
  // cannot be missed and leave the listener blocked for ever.
  while (!server.is_running() && !*returned) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  return t;
}

// httplib listens with a backlog of 5: a burst of clients overflows it and their connections are
// reset. listen() again on the bound socket only raises the backlog. httplib's default also sets
// SO_REUSEPORT, which lets a second daemon bind the same port and silently take half the
// requests; SO_REUSEADDR alone still allows a restart while old connections linger in TIME_WAIT.
std::shared_ptr<socket_t> capture_listening_socket(httplib::Server& server, bool reuse_addr) {
  auto listening = std::make_shared<socket_t>(INVALID_SOCKET);
  server.set_socket_options([listening, reuse_addr](socket_t sock) {
    int yes = 1;
    if (reuse_addr) ::setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    *listening = sock;
  });
  return listening;
}

}  // namespace

FrontDoor::FrontDoor(httplib::Server& routes, GateLimits limits, std::shared_ptr<TlsContext> tls, unsigned threads)
    : routes_(routes) {
  char dir[] = "/tmp/snarkpipe-http-XXXXXX";  // short: a socket path has at most 107 bytes
  if (!::mkdtemp(dir)) throw std::runtime_error(std::string("cannot make a folder in /tmp: ") + std::strerror(errno));
  socket_dir_ = dir;
  socket_path_ = socket_dir_ + "/routes.sock";
  gate_ = std::make_unique<GatedServer>(limits, std::move(tls), socket_path_);
  gate_->new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
  routes_.new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
}

FrontDoor::~FrontDoor() {
  stop();
  ::unlink(socket_path_.c_str());
  ::rmdir(socket_dir_.c_str());
}

int FrontDoor::start(const std::string& host, int port) {
  const auto routes_listening = capture_listening_socket(routes_, false);
  routes_.set_address_family(AF_UNIX);
  if (!routes_.bind_to_port(socket_path_, 80))
    throw std::runtime_error("cannot listen on the private socket " + socket_path_);
  ::listen(*routes_listening, SOMAXCONN);
  const auto listening = capture_listening_socket(*gate_, true);
  const int bound = port == 0 ? gate_->bind_to_any_port(host) : (gate_->bind_to_port(host, port) ? port : -1);
  if (bound < 0) throw std::runtime_error("cannot listen on " + host + ":" + std::to_string(port));
  if (*listening != INVALID_SOCKET) ::listen(*listening, SOMAXCONN);
  routes_listener_ = listen_on(routes_);
  gate_listener_ = listen_on(*gate_);
  return bound;
}

void FrontDoor::stop() {
  // The routes first: their connections end, so every relay ends and the gate's pool drains.
  routes_.stop();
  gate_->stop();
  if (routes_listener_.joinable()) routes_listener_.join();
  if (gate_listener_.joinable()) gate_listener_.join();
}

}  // namespace snarkpipe::service
