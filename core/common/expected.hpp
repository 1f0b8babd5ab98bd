#pragma once
// Expected<T>: a value or a message a person can act on.
//
// The core never throws across its API and never exits; readers and validators return a null
// result plus an error string (the Tiled convention), here folded into one type because C++20
// has no std::expected.

#include <string>
#include <utility>
#include <variant>

namespace qkv {

struct Error {
    std::string message;
};

template <class T>
class Expected {
public:
    Expected(T value) : state_(std::move(value)) {}  // NOLINT: implicit on purpose
    Expected(Error error) : state_(std::move(error)) {}  // NOLINT: implicit on purpose

    bool ok() const { return std::holds_alternative<T>(state_); }
    explicit operator bool() const { return ok(); }

    const T& value() const& { return std::get<T>(state_); }
    T& value() & { return std::get<T>(state_); }
    T&& value() && { return std::get<T>(std::move(state_)); }
    const T& operator*() const& { return value(); }
    T& operator*() & { return value(); }
    const T* operator->() const { return &value(); }
    T* operator->() { return &value(); }

    const std::string& error() const { return std::get<Error>(state_).message; }

private:
    std::variant<T, Error> state_;
};

// Expected<void>: success or an error.
class Status {
public:
    Status() = default;
    Status(Error error) : error_(std::move(error.message)), failed_(true) {}  // NOLINT

    bool ok() const { return !failed_; }
    explicit operator bool() const { return ok(); }
    const std::string& error() const { return error_; }

private:
    std::string error_;
    bool failed_ = false;
};

}  // namespace qkv
