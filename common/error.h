// Errors shared by every component.
//
// Two tiers (as bpftrace's coding guidelines): recoverable problems are return values
// (Result<T>); a fatal user-facing error is a rastro::Error thrown and caught only in main(),
// which prints its message and exits with its exit code.
#pragma once

#include <stdexcept>
#include <string>
#include <utility>
#include <variant>

namespace rastro {

// A fatal error meant for the user: the message names the file, line or record and what is wrong.
class Error : public std::runtime_error {
 public:
  explicit Error(std::string message, int exit_code = 1)
      : std::runtime_error(std::move(message)), exit_code_(exit_code) {}
  int exit_code() const { return exit_code_; }

 private:
  int exit_code_;
};

// A recoverable failure description.
struct Failure {
  std::string message;
};

// Minimal expected-like result (g++ 12 in C++20 mode has no std::expected).
template <typename T>
class Result {
 public:
  Result(T value) : v_(std::move(value)) {}  // NOLINT(google-explicit-constructor)
  Result(Failure f) : v_(std::move(f)) {}    // NOLINT(google-explicit-constructor)
  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }
  T& value() { return std::get<0>(v_); }
  const T& value() const { return std::get<0>(v_); }
  T& operator*() { return value(); }
  T* operator->() { return &value(); }
  const std::string& error() const { return std::get<1>(v_).message; }
  // Turns a failure into a fatal rastro::Error.
  T take() {
    if (!ok()) throw Error(error());
    return std::move(value());
  }

 private:
  std::variant<T, Failure> v_;
};

inline Failure fail(std::string message) { return Failure{std::move(message)}; }

}  // namespace rastro
