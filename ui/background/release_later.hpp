#pragma once
// Lets go of a shared object off the GUI thread when this was its last owner. A result or a
// figure of a 4,096-token layer holds hundreds of megabytes; freeing them returns pages to the
// system, which took the GUI thread 25-30 ms in one turn (measured on the Weights tab when its
// new model replaced the old one). Where a view replaces such an object, it hands the old one
// here instead of dropping it.

#include <memory>
#include <utility>

namespace qkv::ui {

namespace detail {
// Runs the release on the work pool (release_later.cpp).
void runOnWorkPool(std::shared_ptr<const void> last);
}  // namespace detail

// `object` is released now if others still own it (a count drop is cheap), else on the work pool.
template <class T>
void releaseLater(std::shared_ptr<T>&& object)
{
    if (!object) return;
    if (object.use_count() > 1) {
        object.reset();
        return;
    }
    detail::runOnWorkPool(std::shared_ptr<const void>(std::move(object)));
}

}  // namespace qkv::ui
