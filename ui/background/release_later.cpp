#include "ui/background/release_later.hpp"

#include <QThreadPool>

#include "ui/background/work_pool.hpp"

namespace qkv::ui::detail {

void runOnWorkPool(std::shared_ptr<const void> last)
{
    // The lambda owns the object; the pool destroys the lambda on its thread after running it.
    workPool()->start([last = std::move(last)]() mutable { last.reset(); });
}

}  // namespace qkv::ui::detail
