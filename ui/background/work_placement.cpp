#include "ui/background/work_placement.hpp"

namespace qkv::ui {

LatestTaskBase::Run placementFor(double multiplyAdds)
{
    return multiplyAdds <= kGuiThreadWorkLimit ? LatestTaskBase::Run::InlineWhenIdle
                                               : LatestTaskBase::Run::InBackground;
}

}  // namespace qkv::ui
