#pragma once
// The Heads tab's detail of a long (streamed) layer, whose maps are kept only pooled: the
// selected query's whole row, exact, as a strip over all n_k keys (long_row_strip.hpp), and an
// exact region of the selected head around the selected (query, key) cell (exact_region.hpp).
// Both are recomputed from Q_i and K_j off the GUI thread, each through one latest-only task;
// until a new one arrives the previous one stays drawn with a "computing…" note.
//
// It follows the shared HeadSelection (head, and (queryRow, keyColumn) as token positions) and
// sets it: a click on the strip selects that key and recentres the region there, a click in the
// region selects that cell. The wheel halves or doubles the region's side, a drag zooms into the
// rectangle it draws. Several queries selected together (a span) show their mean row and each
// key's largest weight. A null Result shows nothing and costs nothing.

#include <QImage>
#include <QPoint>
#include <QRect>
#include <QWidget>

#include <memory>
#include <vector>

#include "core/common/expected.hpp"
#include "core/result/result.hpp"
#include "ui/background/latest_task.hpp"
#include "ui/heads/exact_region.hpp"
#include "ui/heads/long_row_strip.hpp"
#include "ui/render/colormap.hpp"

namespace qkv::ui {

class HeadSelection;

class LongLayerDetail : public QWidget {
    Q_OBJECT
public:
    explicit LongLayerDetail(HeadSelection* selection, QWidget* parent = nullptr);
    ~LongLayerDetail() override;

    // Null: shows nothing, does no work. A held (not streamed) result: the selected query's or
    // span's row only (the Heads grid shows a held layer's cells).
    void setResult(std::shared_ptr<const qkv::Result> result);
    void setColormap(ColormapName colormap);

    // Test hooks.
    bool isBusy() const { return strip_.isBusy() || region_.isBusy(); }
    const RowStrip* shownRow() const { return shownRow_.get(); }  // null before the first row
    std::vector<KeyWeight> shownTopKeys() const { return shownRow_ ? shownRow_->top : std::vector<KeyWeight>{}; }
    const ExactRegion* shownRegion() const { return shownRegion_.get(); }  // null before the first region
    RegionBounds regionBounds() const { return wanted_; }  // the region asked for last
    QString stripError() const { return stripError_; }
    QString regionError() const { return regionError_; }
    QString toolTipAt(const QPoint& point) const;
    // Where key `key` of the shown row, and position (query, key) of the shown region, are drawn.
    QPoint stripPointOfKey(qkv::Index key) const;
    QPoint regionPointOfCell(qkv::Index query, qkv::Index key) const;

    QSize sizeHint() const override { return {1000, 340}; }
    QSize minimumSizeHint() const override { return {420, 220}; }

protected:
    bool event(QEvent* event) override;  // tool tips
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void showEvent(QShowEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;

private:
    // Screen readers read the exact region as a table of positions (the strip is one row of it).
    void makeAccessibleTable();
    using RowOutcome = qkv::Expected<std::shared_ptr<const RowStrip>>;
    struct RegionOutcome {
        qkv::Expected<std::shared_ptr<const ExactRegion>> region;
        QImage image;  // one pixel per drawn block, in `colormap`
        ColormapName colormap;
    };
    struct Panels {
        QRectF strip, region;
    };
    struct StripHit {
        qkv::Index key = -1;         // -1: none
        qkv::Index first = 0, end = 0;  // the keys sharing its pixel
    };

    Panels panels() const;
    bool active() const { return result_ != nullptr; }
    // A long layer's region beside the row; a held layer's grid shows its cells itself.
    bool showsRegion() const { return result_ && result_->streamed(); }
    void followHead();
    void followCell(int queryRow, int keyColumn);
    void requestRow();
    void requestRegion();
    void showRow(RowOutcome outcome);
    void showRegion(RegionOutcome outcome);
    StripHit stripHitAt(const QPointF& point) const;
    void selectFromStrip(const QPointF& point);
    void zoomTo(const QRect& dragged);
    HeatmapLayout shownRegionLayout() const;
    HeatmapStyle shownRegionStyle() const;
    void paintBusyNote(QPainter& painter, const QRectF& panel) const;

    HeadSelection* selection_;
    std::shared_ptr<const qkv::Result> result_;
    ColormapName colormap_ = ColormapName::Viridis;
    bool stale_ = false;  // a request waits for the widget to be shown

    qkv::Index side_ = 256;  // the region's side, halved and doubled by the wheel
    RegionBounds wanted_;
    // What was asked last, so an unchanged request is not repeated.
    const qkv::Result* askedRowResult_ = nullptr;
    int askedRowHead_ = -1;
    qkv::Index askedRowQuery_ = -1;
    qkv::Index askedRowEnd_ = -1;
    const qkv::Result* askedRegionResult_ = nullptr;
    int askedRegionHead_ = -1;
    RegionBounds askedBounds_;
    QSize askedPixels_;

    std::shared_ptr<const RowStrip> shownRow_;
    QString stripError_;
    std::shared_ptr<const ExactRegion> shownRegion_;
    QImage regionImage_;
    ColormapName imageColormap_ = ColormapName::Viridis;
    QString regionError_;

    QPoint pressed_{-1, -1};  // where a drag in the region started
    QRect rubberBand_;

    // Last: their destructors wait for running work, which reads nothing of this object.
    LatestTask<RowOutcome> strip_;
    LatestTask<RegionOutcome> region_;
};

}  // namespace qkv::ui
