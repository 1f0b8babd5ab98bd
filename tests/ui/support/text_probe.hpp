#pragma once
// A paint device that records every string drawn on it, where it lands and whether it is cut,
// for the readability tests: paint a figure, or render a widget, onto a
// TextProbe, then check that titles, axis titles and legend names are whole and visible.

#include <QPaintDevice>
#include <QRectF>
#include <QString>
#include <QStringList>

#include <memory>
#include <vector>

class QPaintEngine;

namespace qkv::ui::testing {

struct DrawnText {
    QString text;
    QRectF bounds;  // device coordinates (the box of the advance and the line's height)
    bool clipped;   // a clip cuts into it
};

class TextProbe : public QPaintDevice {
public:
    explicit TextProbe(QSize size);
    ~TextProbe() override;

    QPaintEngine* paintEngine() const override;
    const std::vector<DrawnText>& texts() const;
    QSize size() const { return size_; }

    // The strings drawn, for messages.
    QStringList strings() const;
    // Texts that are cut by a clip, elided ("…") or reach outside the device, as messages
    // ("'Head 1' outside (1390, 3, 40 x 15)").
    QStringList problems() const;
    // The same, leaving out text inside `ignore` (device coordinates), e.g. a table whose cells
    // elide by design (their full text is in their tooltips and the copy).
    QStringList problems(const std::vector<QRectF>& ignore) const;
    // Whether `text` was drawn (possibly word-wrapped over several lines). With no problems(),
    // it is then whole and visible.
    bool shows(const QString& text) const;

protected:
    int metric(PaintDeviceMetric metric) const override;

private:
    QSize size_;
    std::unique_ptr<QPaintEngine> engine_;
};

}  // namespace qkv::ui::testing
