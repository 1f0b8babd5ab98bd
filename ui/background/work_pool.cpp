#include "ui/background/work_pool.hpp"

#include <QThreadPool>

namespace qkv::ui {

QThreadPool* workPool()
{
    static QThreadPool pool;  // waits for its work at exit, after main() returns
    return &pool;
}

}  // namespace qkv::ui
