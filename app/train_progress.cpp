#include "app/train_progress.hpp"

#include <algorithm>
#include <cmath>

namespace qkv::app {

namespace {

// A bar is redrawn at most this often, a log line written at most this often.
constexpr std::chrono::milliseconds kBarInterval{100};
constexpr std::chrono::seconds kLineInterval{5};
constexpr int kBarWidth = 30;

// "1:05" (minutes:seconds), or "1:02:05" beyond an hour.
std::string clockText(double seconds)
{
    const long whole = std::lround(std::max(0.0, seconds));
    char text[32];
    if (whole >= 3600)
        std::snprintf(text, sizeof text, "%ld:%02ld:%02ld", whole / 3600, whole / 60 % 60, whole % 60);
    else
        std::snprintf(text, sizeof text, "%ld:%02ld", whole / 60, whole % 60);
    return text;
}

}  // namespace

TrainingProgress::TrainingProgress(std::FILE* out, long totalSteps, bool terminal)
    : out_(out), totalSteps_(std::max(1L, totalSteps)), terminal_(terminal)
{
}

void TrainingProgress::stepped(std::string_view variant, const CurvePoint& point)
{
    ++done_;
    const Clock::time_point now = Clock::now();
    if (now - lastShown_ < (terminal_ ? std::chrono::duration_cast<Clock::duration>(kBarInterval)
                                      : std::chrono::duration_cast<Clock::duration>(kLineInterval)) &&
        done_ < totalSteps_)
        return;
    lastShown_ = now;
    // Wall time, evaluations included: what the person waits for.
    const double elapsed = std::chrono::duration<double>(now - started_).count();
    const double rate = elapsed > 0.0 ? static_cast<double>(done_) / elapsed : 0.0;
    const double left = rate > 0.0 ? static_cast<double>(totalSteps_ - done_) / rate : 0.0;
    if (terminal_) {
        drawBar(variant, point, rate, left);
        return;
    }
    std::fprintf(out_, "qkv-studio train: %.*s: step %ld of %ld, loss %.4f, %.0f steps/s, %s left\n",
                 static_cast<int>(variant.size()), variant.data(), done_, totalSteps_, point.loss, rate,
                 clockText(left).c_str());
    std::fflush(out_);
}

void TrainingProgress::drawBar(std::string_view variant, const CurvePoint& point, double rate, double left)
{
    const int filled = static_cast<int>(static_cast<double>(kBarWidth) * static_cast<double>(done_) /
                                        static_cast<double>(totalSteps_));
    const std::string bar = std::string(static_cast<std::size_t>(filled), '#') +
                            std::string(static_cast<std::size_t>(kBarWidth - filled), '-');
    // \r back to the start of the line, \x1b[K clears what a longer line left behind.
    std::fprintf(out_, "\r%.*s [%s] %ld/%ld  %.0f steps/s  %s left  loss %.4f\x1b[K", static_cast<int>(variant.size()),
                 variant.data(), bar.c_str(), done_, totalSteps_, rate, clockText(left).c_str(), point.loss);
    std::fflush(out_);
    barShown_ = true;
}

void TrainingProgress::finished(std::string_view variant, const std::string& provenance, double seconds)
{
    if (barShown_) std::fputs("\r\x1b[K", out_);
    barShown_ = false;
    std::fprintf(out_, "qkv-studio train: %.*s: %s (%s of training)\n", static_cast<int>(variant.size()),
                 variant.data(), provenance.c_str(), clockText(seconds).c_str());
    std::fflush(out_);
}

}  // namespace qkv::app
