#pragma once
// Waiting in widget tests for something to happen: poll a condition while processing events,
// with a limit that only a hang reaches (a loaded machine or the sanitizer build is several
// times slower). A test never depends on a fixed sleep being long or short enough.

#include <QDeadlineTimer>
#include <QTest>

#include <chrono>

namespace qkv::ui::testing {

inline constexpr std::chrono::milliseconds hangLimit{60000};

// Processes events until `done()` holds; false if `limit` passed first.
template <class Condition>
bool waitUntil(Condition done, std::chrono::milliseconds limit = hangLimit)
{
    const QDeadlineTimer deadline(limit);
    while (!done()) {
        if (deadline.hasExpired()) return false;
        QTest::qWait(5);
    }
    return true;
}

}  // namespace qkv::ui::testing
