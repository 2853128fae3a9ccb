// A large array that is used like a std::vector but may be held three ways:
// - owned: a std::vector;
// - a view into a memory-mapped file (a cached .snkr1cs circuit is used in place: a copy
//   would double the memory of a 10 GB recorded circuit while it is made);
// - elsewhere: only its size is known here, its entries live on a GPU or are left in a file
//   (a 47 GB proving key whose queries go straight from the .params file to the device, so
//   the host never holds them). data() is null; reading an entry is a caller's bug, so code
//   that reads entries asks on_host() first and refuses with a clear error.
//
// Reads cost what a vector's do: data_/size_ describe the entries whichever way they are held.
// A view may be written through: mappings are private, so a write copies the touched page and
// never reaches the file. Anything that changes the size (push_back, resize, ...) first copies
// a view into an owned vector. Copying copies the entries into an owned array, as copying a
// vector does (a shared view would let a write through one copy show through the other);
// moving hands the view over. A copy of an array held elsewhere is held elsewhere.
#pragma once

#include <sys/mman.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <vector>

namespace snarkpipe::base {

template <class T>
class HostArray {
 public:
  using value_type = T;
  using size_type = std::size_t;
  using iterator = T*;
  using const_iterator = const T*;

  HostArray() = default;
  // Implicit, so that vectors are assigned and compared as before.
  HostArray(std::vector<T> v) : owned_(std::move(v)) { sync(); }
  // A view of the n entries at p, which stay valid while `keep` is alive.
  static HostArray view(std::shared_ptr<void> keep, T* p, std::size_t n) {
    HostArray a;
    a.keep_ = std::move(keep);
    a.data_ = p;
    a.size_ = n;
    return a;
  }
  // n entries that are not in host memory.
  static HostArray elsewhere(std::size_t n) {
    HostArray a;
    a.size_ = n;
    a.elsewhere_ = n > 0;
    return a;
  }

  HostArray(const HostArray& o) : owned_(o.elsewhere_ ? std::vector<T>{} : std::vector<T>(o.begin(), o.end())) {
    sync();
    if (o.elsewhere_) size_ = o.size_, elsewhere_ = true;
  }
  HostArray(HostArray&& o) noexcept : owned_(std::move(o.owned_)), keep_(std::move(o.keep_)), elsewhere_(o.elsewhere_) {
    data_ = keep_ ? o.data_ : elsewhere_ ? nullptr : owned_.data();
    size_ = o.size_;
    o.reset();
  }
  HostArray& operator=(const HostArray& o) {
    if (this != &o) *this = HostArray(o);
    return *this;
  }
  HostArray& operator=(HostArray&& o) noexcept {
    if (this != &o) {
      owned_ = std::move(o.owned_);
      keep_ = std::move(o.keep_);
      elsewhere_ = o.elsewhere_;
      data_ = keep_ ? o.data_ : elsewhere_ ? nullptr : owned_.data();
      size_ = o.size_;
      o.reset();
    }
    return *this;
  }

  // True when the entries live in a mapped file.
  bool is_view() const { return keep_ != nullptr; }
  // False when the entries are held elsewhere (a device, a file): only size() is meaningful.
  bool on_host() const { return !elsewhere_; }

  // Lets the kernel drop the pages of a view that are still the file's (a circuit mapped from
  // its cache file, once a GPU holds its own copy): they leave this process's resident memory
  // and come back from the file if read again. Pages written through the view are kept
  // (MADV_PAGEOUT never discards data). Nothing for owned arrays.
  void release_mapped_pages() const {
#ifdef MADV_PAGEOUT
    if (!keep_ || size_ == 0) return;
    const std::uintptr_t page = 4096;
    const std::uintptr_t b = (reinterpret_cast<std::uintptr_t>(data_) + page - 1) & ~(page - 1);
    const std::uintptr_t e = reinterpret_cast<std::uintptr_t>(data_ + size_) & ~(page - 1);
    if (e > b) ::madvise(reinterpret_cast<void*>(b), e - b, MADV_PAGEOUT);
#endif
  }

  T* data() { return data_; }
  const T* data() const { return data_; }
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T& operator[](std::size_t i) { return data_[i]; }
  const T& operator[](std::size_t i) const { return data_[i]; }
  T& back() { return data_[size_ - 1]; }
  const T& back() const { return data_[size_ - 1]; }
  T* begin() { return data_; }
  T* end() { return data_ + (elsewhere_ ? 0 : size_); }
  const T* begin() const { return data_; }
  const T* end() const { return data_ + (elsewhere_ ? 0 : size_); }

  void reserve(std::size_t n) {
    own().reserve(n);
    sync();
  }
  void resize(std::size_t n) {
    own().resize(n);
    sync();
  }
  void push_back(const T& x) {
    own().push_back(x);
    sync();
  }
  void pop_back() {
    own().pop_back();
    sync();
  }
  void clear() {
    owned_.clear();
    keep_.reset();
    elsewhere_ = false;
    sync();
  }

  friend bool operator==(const HostArray& x, const HostArray& y) {
    if (x.elsewhere_ || y.elsewhere_) return x.elsewhere_ == y.elsewhere_ && x.size_ == y.size_;
    return x.size_ == y.size_ && std::equal(x.begin(), x.end(), y.begin());
  }

 private:
  // The owned vector, made from the view first when there is one.
  std::vector<T>& own() {
    if (elsewhere_) throw std::logic_error("HostArray: the entries are not in host memory");
    if (keep_) {
      owned_.assign(data_, data_ + size_);
      keep_.reset();
    }
    return owned_;
  }
  void sync() {
    data_ = owned_.data();
    size_ = owned_.size();
  }
  void reset() {
    owned_.clear();
    keep_.reset();
    elsewhere_ = false;
    sync();
  }

  std::vector<T> owned_;
  std::shared_ptr<void> keep_;  // the mapping a view lies in; null when owned
  T* data_ = nullptr;
  std::size_t size_ = 0;
  bool elsewhere_ = false;
};

}  // namespace snarkpipe::base
