#include "ui/background/work_pool.hpp"

#include <QThreadPool>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <exception>
#include <memory>
#include <mutex>

namespace qkv::ui {

QThreadPool* workPool()
{
    static QThreadPool pool;  // waits for its work at exit, after main() returns
    return &pool;
}

namespace {

// One job's pieces, shared by the calling thread and the pool threads that help it.
struct Pieces {
    explicit Pieces(int count, const std::function<void(int)>& work) : count(count), work(work) {}
    const int count;
    const std::function<void(int)>& work;  // the caller's: called only while the caller waits
    std::atomic<int> next{0};
    std::atomic<int> helping{0};  // helpers between claiming a piece and finishing it
    std::mutex mutex;
    std::condition_variable done;
    std::exception_ptr failure;  // the first piece that threw (under mutex)

    // Pieces until none is left. A helper counts itself before it claims one, so the caller,
    // once it finds none left, waits for exactly the pieces helpers are running.
    void run(bool helper)
    {
        for (;;) {
            if (helper) ++helping;
            const int piece = next.fetch_add(1);
            if (piece < count) {
                try {
                    work(piece);
                } catch (...) {  // kept for the caller, who rethrows it once no helper runs
                    const std::lock_guard<std::mutex> lock(mutex);
                    if (!failure) failure = std::current_exception();
                }
            }
            if (helper && --helping == 0) {
                const std::lock_guard<std::mutex> lock(mutex);
                done.notify_all();
            }
            if (piece >= count) return;
        }
    }
};

}  // namespace

void forEachOnIdleThreads(int count, const std::function<void(int)>& work)
{
    if (count <= 0) return;
    auto pieces = std::make_shared<Pieces>(count, work);
    // Only threads that are idle now (tryStart never queues): a piece never waits in the pool's
    // queue, so a job on the pool cannot wait for itself, nor two such jobs for each other.
    // (QtConcurrent's blocking map queues its work in Qt 6 and waited for a busy pool here.)
    const int helpers = std::min(count, workPool()->maxThreadCount()) - 1;
    for (int h = 0; h < helpers; ++h)
        if (!workPool()->tryStart([pieces] { pieces->run(true); })) break;
    pieces->run(false);
    std::unique_lock<std::mutex> lock(pieces->mutex);
    pieces->done.wait(lock, [&] { return pieces->helping.load() == 0; });
    if (pieces->failure) std::rethrow_exception(pieces->failure);
}

}  // namespace qkv::ui
