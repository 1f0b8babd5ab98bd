#pragma once
// A heavy figure painted into an image off the GUI thread. The painter is the figure's own (the
// one export and `qkv-studio figure` call), so the screen still shows the same drawing; only
// where it runs changes. While the figure's work is small it paints inline, straight onto the
// widget, as every figure does; above the GUI thread's limit (work_placement.hpp) it is painted
// into an image on the pool through a latest-only task, and until that image arrives the widget
// shows the previous one stretched to the new size (or a short note on the first drawing).
//
// A figure at d_model 4096 pools a 4096 x 4096 factor and multiplies pooled factors with d_k =
// 4096 columns: hundreds of milliseconds that would freeze every slider if done while painting.

#include <QColor>
#include <QFont>
#include <QImage>
#include <QRectF>
#include <QString>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>

#include "ui/background/latest_task.hpp"

class QPainter;
class QWidget;

namespace qkv::ui {

class OffscreenFigure {
public:
    using Paint = std::function<void(QPainter&, const QRectF&)>;

    // `widget` is repainted when an image arrives; the task lives as long as this object.
    explicit OffscreenFigure(QWidget* widget);

    // Paints `paint` over `rect` of `painter` (the widget's). `key` names what is drawn (the
    // data, the view's options, the palette): an image is reused while the key, the size and the
    // device pixel ratio stay the same. `work` (multiply-adds) decides inline or on the pool.
    // `paint` runs on a worker thread when placed there: it must capture its inputs by value
    // (shared, immutable data) and touch no widget. `data`, when given, is what the figure draws:
    // the image keeps it alive, so a key made from its address never names newer data at the same
    // address.
    void paint(QPainter& painter, const QRectF& rect, std::uint64_t key, double work, Paint paint,
               std::shared_ptr<const void> data = {});

    // An image is being painted on the pool for the latest request.
    bool isPending() const { return pending_.has_value(); }

private:
    struct Request {
        std::uint64_t key = 0;
        std::shared_ptr<const void> data;  // kept alive with the image
        QSize size;  // logical pixels
        qreal ratio = 1;
        bool operator==(const Request&) const = default;
    };
    struct Image {
        Request request;
        QImage image;
    };
    void deliver(Image image);

    QWidget* widget_;
    std::optional<Image> shown_;      // the latest image that arrived
    std::optional<Request> pending_;  // asked for, not yet arrived
    LatestTask<Image> task_;
};

// Combines values into one key for OffscreenFigure::paint (FNV-1a over their bytes).
class FigureKey {
public:
    FigureKey& add(std::uint64_t value);
    FigureKey& add(const void* pointer)
    {
        return add(static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(pointer)));
    }
    FigureKey& add(const QColor& color) { return add(static_cast<std::uint64_t>(color.rgba64())); }
    FigureKey& add(const QFont& font);
    std::uint64_t value() const { return hash_; }

private:
    std::uint64_t hash_ = 1469598103934665603ULL;
};

}  // namespace qkv::ui
