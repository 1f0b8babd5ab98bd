#include "ui/background/work_pool.hpp"

#include <QThreadPool>
#include <QtConcurrent/QtConcurrentMap>

#include <numeric>
#include <vector>

namespace qkv::ui {

QThreadPool* workPool()
{
    static QThreadPool pool;  // waits for its work at exit, after main() returns
    return &pool;
}

void forEachOnIdleThreads(int count, const std::function<void(int)>& work)
{
    if (count <= 0) return;
    if (count == 1) {
        work(0);
        return;
    }
    std::vector<int> pieces(static_cast<std::size_t>(count));
    std::iota(pieces.begin(), pieces.end(), 0);
    // QtConcurrent's blocking map works on the calling thread and only tries to start pool threads
    // (QThreadPool::tryStart): a piece never waits in the pool's queue, so this cannot wait for the
    // task that called it.
    QtConcurrent::blockingMap(workPool(), pieces, [&work](int piece) { work(piece); });
}

}  // namespace qkv::ui
