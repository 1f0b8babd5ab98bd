// A heavy figure is painted off the GUI thread (ui/background/offscreen_figure.hpp): above the GUI
// thread's limit the figure's painter runs on the pool, the widget shows a note and then the image,
// the image is reused while nothing changes, a new key paints again, and small figures paint
// inline, straight onto the widget, as before.

#include <QImage>
#include <QPainter>
#include <QThread>
#include <QWidget>

#include <atomic>
#include <cstdint>

#include <gtest/gtest.h>

#include "tests/ui/support/wait_until.hpp"
#include "ui/background/offscreen_figure.hpp"
#include "ui/background/work_placement.hpp"

namespace qkv::ui {
namespace {

using testing::waitUntil;

// A widget whose figure fills its rectangle with one colour and counts where it was painted.
class Canvas : public QWidget {
public:
    Canvas()
    {
        resize(120, 80);
        setAttribute(Qt::WA_DontShowOnScreen);
    }
    double work = 0;
    std::uint64_t key = 1;
    QColor color = Qt::red;
    std::atomic<int> onGuiThread{0}, elsewhere{0};

    QImage grabbed()
    {
        QImage image(size(), QImage::Format_ARGB32_Premultiplied);
        image.fill(Qt::white);
        render(&image);
        return image;
    }

protected:
    void paintEvent(QPaintEvent*) override
    {
        QPainter painter(this);
        painter.fillRect(rect(), Qt::white);
        figure_.paint(painter, QRectF(rect()), key, work, [this, color = color](QPainter& p, const QRectF& r) {
            (QThread::currentThread() == qApp->thread() ? onGuiThread : elsewhere)++;
            p.fillRect(r, color);
        });
    }

private:
    OffscreenFigure figure_{this};
};

constexpr double kHeavy = 10 * kGuiThreadWorkLimit;

TEST(OffscreenFigure, SmallFiguresPaintInlineOnTheGuiThread)
{
    Canvas canvas;
    canvas.work = kGuiThreadWorkLimit / 10;
    const QImage image = canvas.grabbed();
    EXPECT_EQ(canvas.onGuiThread.load(), 1);
    EXPECT_EQ(canvas.elsewhere.load(), 0);
    EXPECT_EQ(image.pixelColor(60, 40), QColor(Qt::red));
}

TEST(OffscreenFigure, HeavyFiguresPaintOnThePoolThenShowTheImage)
{
    Canvas canvas;
    canvas.work = kHeavy;
    const QImage first = canvas.grabbed();  // asks for the image; shows the note meanwhile
    EXPECT_EQ(canvas.onGuiThread.load(), 0);
    EXPECT_NE(first.pixelColor(2, 2), QColor(Qt::red));
    ASSERT_TRUE(waitUntil([&] { return canvas.elsewhere.load() == 1; }));
    ASSERT_TRUE(waitUntil([&] { return canvas.grabbed().pixelColor(60, 40) == QColor(Qt::red); }));
    // The same key, size and ratio: the image is reused, nothing is painted again.
    for (int i = 0; i < 3; ++i) EXPECT_EQ(canvas.grabbed().pixelColor(2, 2), QColor(Qt::red));
    EXPECT_EQ(canvas.elsewhere.load(), 1);
    EXPECT_EQ(canvas.onGuiThread.load(), 0);
}

TEST(OffscreenFigure, ANewKeyOrSizePaintsAgainAndVeilsTheOldDrawingMeanwhile)
{
    Canvas canvas;
    canvas.work = kHeavy;
    canvas.grabbed();
    ASSERT_TRUE(waitUntil([&] { return canvas.grabbed().pixelColor(60, 40) == QColor(Qt::red); }));

    canvas.key = 2;
    canvas.color = Qt::blue;
    const QImage meanwhile = canvas.grabbed();
    // The old drawing under a veil of the base colour: neither the old red nor the new blue.
    EXPECT_NE(meanwhile.pixelColor(2, 2), QColor(Qt::red));
    EXPECT_NE(meanwhile.pixelColor(2, 2), QColor(Qt::blue));
    ASSERT_TRUE(waitUntil([&] { return canvas.grabbed().pixelColor(60, 40) == QColor(Qt::blue); }));

    canvas.resize(200, 100);  // same key: the old image stretched until the new one arrives
    const QImage stretched = canvas.grabbed();
    EXPECT_EQ(stretched.pixelColor(150, 80), QColor(Qt::blue));
    ASSERT_TRUE(waitUntil([&] { return canvas.elsewhere.load() == 3; }));
    EXPECT_EQ(canvas.onGuiThread.load(), 0);
}

TEST(OffscreenFigure, AnInlinePaintSupersedesAPendingImage)
{
    Canvas canvas;
    canvas.work = kHeavy;
    canvas.grabbed();  // pending on the pool
    canvas.work = 0;   // the data shrank: painted inline now
    canvas.color = Qt::green;
    EXPECT_EQ(canvas.grabbed().pixelColor(60, 40), QColor(Qt::green));
    // The heavy image, if it still arrives, is dropped: the inline drawing stays.
    QTest::qWait(200);
    EXPECT_EQ(canvas.grabbed().pixelColor(60, 40), QColor(Qt::green));
}

}  // namespace
}  // namespace qkv::ui
