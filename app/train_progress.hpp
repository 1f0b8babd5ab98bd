#pragma once
// `qkv-studio train`'s progress on stderr: on a terminal a bar redrawn in place (steps, steps/s,
// time left, the loss); otherwise (a log, a pipe) one line every few seconds, so that a log file
// stays readable. Either way a line per variant when it is done.

#include <chrono>
#include <cstdio>
#include <string>
#include <string_view>

#include "core/training/training_run.hpp"

namespace qkv::app {

class TrainingProgress {
public:
    // `totalSteps`: of every variant together (the time left counts them all).
    TrainingProgress(std::FILE* out, long totalSteps, bool terminal);
    // After each optimiser step of `variant`.
    void stepped(std::string_view variant, const CurvePoint& point);
    // A variant is done: its provenance ("trained: reverse, 2,000 steps, held-out accuracy 99.6%").
    void finished(std::string_view variant, const std::string& provenance, double seconds);

private:
    using Clock = std::chrono::steady_clock;
    void drawBar(std::string_view variant, const CurvePoint& point, double rate, double left);

    std::FILE* out_;
    long totalSteps_;
    bool terminal_;
    long done_ = 0;
    Clock::time_point started_ = Clock::now();
    Clock::time_point lastShown_ = Clock::now();
    bool barShown_ = false;
};

}  // namespace qkv::app
