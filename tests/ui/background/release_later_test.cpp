// A large object's last owner on the GUI thread lets it go on the work pool; an object others
// still own is only counted down.
#include <gtest/gtest.h>

#include <QThread>

#include <atomic>
#include <memory>

#include "tests/ui/support/wait_until.hpp"
#include "ui/background/release_later.hpp"

namespace qkv::ui {
namespace {

// Records the thread it was destroyed on.
struct Tracked {
    explicit Tracked(std::atomic<QThread*>* where) : where_(where) {}
    ~Tracked() { where_->store(QThread::currentThread()); }
    std::atomic<QThread*>* where_;
};

TEST(ReleaseLater, TheLastOwnerFreesOnTheWorkPool)
{
    std::atomic<QThread*> where{nullptr};
    auto object = std::make_shared<const Tracked>(&where);
    releaseLater(std::move(object));
    EXPECT_EQ(object, nullptr);
    ASSERT_TRUE(testing::waitUntil([&] { return where.load() != nullptr; }));
    EXPECT_NE(where.load(), QThread::currentThread());
}

TEST(ReleaseLater, AnObjectOthersOwnIsOnlyCountedDown)
{
    std::atomic<QThread*> where{nullptr};
    auto object = std::make_shared<Tracked>(&where);
    std::shared_ptr<Tracked> other = object;
    releaseLater(std::move(object));
    EXPECT_EQ(object, nullptr);
    EXPECT_EQ(other.use_count(), 1);
    EXPECT_EQ(where.load(), nullptr);
    other.reset();  // here, on this thread
    EXPECT_EQ(where.load(), QThread::currentThread());
}

TEST(ReleaseLater, NothingToReleaseIsFine)
{
    std::shared_ptr<int> nothing;
    releaseLater(std::move(nothing));
    EXPECT_EQ(nothing, nullptr);
}

}  // namespace
}  // namespace qkv::ui
