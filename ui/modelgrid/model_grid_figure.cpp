#include "ui/modelgrid/model_grid_figure.hpp"

#include <QCoreApplication>
#include <QFontMetricsF>
#include <QImage>
#include <QPainter>

#include <algorithm>
#include <cmath>

#include "core/analysis/head_roles.hpp"
#include "core/analysis/map_pooling.hpp"
#include "ui/figures/figure_text.hpp"
#include "ui/modelgrid/model_grid_text.hpp"
#include "ui/render/color_legend.hpp"
#include "ui/render/heatmap_painter.hpp"
#include "ui/wholemodel/whole_model_figure_parts.hpp"

namespace qkv::ui {
namespace {

// The translation context of this file's visible text (lupdate reads Text::tr).
struct Text {
    Q_DECLARE_TR_FUNCTIONS(qkv::ui::ModelGridFigure)
};

constexpr double kMargin = 8.0;
constexpr double kPad = 4.0;
constexpr double kLegendWidth = 440.0;
// Tokens are written beside the maps when a map is at least this many lines high.
constexpr double kTokenLabelsFrom = 5.0;
// A vector file gets each map as an image enlarged (nearest) up to this side, so viewers that
// smooth images blur only within a cell.
constexpr int kVectorImageSide = 512;

QString legendLabel(bool valueWeighted)
{
    return valueWeighted ? Text::tr("value-weighted norm ‖a_qj f(x_j)‖ (Kobayashi et al. 2020): each map from 0 to "
                                    "its own maximum, since norms are unbounded")
                         : Text::tr("attention weight a_qj, 0 to 1 (each map: rows are queries, columns keys)");
}

QString subtitleText(const qkv::ModelOverview& overview, bool valueWeighted)
{
    const QString what = valueWeighted ? Text::tr("value-weighted attention") : Text::tr("attention weights");
    const auto tokens = static_cast<qkv::Index>(overview.sentences.sequence.tokens.size());
    return Text::tr("%1 · %2 of every head on the typed sentence (%3 tokens)").arg(modelShapeLine(overview), what).arg(tokens);
}

QString noteText()
{
    return Text::tr("Grey and crossed: a head switched off · rows: layers in the order the model runs them, "
                    "labelled with their --list-layers index · \"prev 0.93\" (P on a small map): a previous-token "
                    "head, its mean weight on the token just before; \"ind 0.86\" (I): an induction head, its mean "
                    "weight on the token after the current one's last earlier occurrence (Olsson et al. 2022; named at %1 "
                    "or more, on the typed sentence)")
        .arg(qkv::kRoleThreshold);
}

// "prev 0.93" or "ind 0.86" for a head the typed sentence shows to do one of those jobs; empty
// for the others (head_roles.hpp has the scores and the threshold).
QString roleText(const qkv::HeadStatisticGrids& grids, int layer, int head)
{
    if (layer >= grids.previousToken.rows() || head >= grids.previousToken.cols()) return {};
    const double previous = grids.previousToken(layer, head), induction = grids.induction(layer, head);
    switch (qkv::headRole(previous, induction)) {
    case qkv::HeadRole::PreviousToken: return Text::tr("prev %1").arg(previous, 0, 'f', 2);
    case qkv::HeadRole::Induction: return Text::tr("ind %1").arg(induction, 0, 'f', 2);
    case qkv::HeadRole::None: break;
    }
    return {};
}

// The role's words in the map's top-right corner (a causal map's masked triangle: no weight is
// covered there), on a backing so they read over any colour; the role's word alone, or its first
// letter, where the words do not fit.
void paintRole(QPainter& painter, const QRectF& map, const QString& role)
{
    if (role.isEmpty()) return;
    const QFontMetricsF metrics(painter.font(), painter.device());
    // "prev 0.93", else "prev", else "P": the word before the letter.
    QString shown = role;
    if (metrics.horizontalAdvance(shown) + 4 > map.width()) shown = role.section(QLatin1Char(' '), 0, 0);
    if (metrics.horizontalAdvance(shown) + 4 > map.width()) shown = role.left(1).toUpper();
    const double width = std::min(map.width(), metrics.horizontalAdvance(shown) + 4);
    const QRectF box(map.right() - width, map.top(), width, metrics.height());
    painter.fillRect(box, QColor(255, 255, 255, 215));
    painter.setPen(Qt::black);
    painter.drawText(box, Qt::AlignCenter, shown);
}

double deviceScale(const QPainter& painter)
{
    const QTransform t = painter.deviceTransform();
    return std::hypot(t.m11(), t.m12());
}

// The map's colour image for `pixels` device pixels: cell by cell when every cell gets one,
// else block means (map_pooling.hpp), one per device pixel.
QImage mapImage(const qkv::MatrixF& map, double maxValue, QSize pixels, bool vector)
{
    const QSize cells(static_cast<int>(map.cols()), static_cast<int>(map.rows()));
    if (vector || (pixels.width() >= cells.width() && pixels.height() >= cells.height())) {
        QImage image = heatmapImage(map, ColormapName::Viridis, 0.0, maxValue);
        if (!vector) return image;
        const int factor = std::clamp(kVectorImageSide / std::max(1, std::max(cells.width(), cells.height())), 1, 8);
        return image.scaled(cells * factor, Qt::IgnoreAspectRatio, Qt::FastTransformation);
    }
    const qkv::Expected<qkv::MatrixF> pooled =
        qkv::blockMeans(map, std::clamp<qkv::Index>(pixels.height(), 1, map.rows()),
                        std::clamp<qkv::Index>(pixels.width(), 1, map.cols()));
    return pooled ? heatmapImage(*pooled, ColormapName::Viridis, 0.0, maxValue) : QImage();
}

void paintSwitchedOff(QPainter& painter, const QRectF& rect)
{
    painter.fillRect(rect, QColor(128, 128, 128, 170));
    painter.setPen(QPen(Colormap::neutralColor().darker(160), std::max(1.0, rect.width() / 40)));
    painter.drawLine(rect.topLeft(), rect.bottomRight());
    painter.drawLine(rect.topRight(), rect.bottomLeft());
}

void paintThumbnails(QPainter& painter, const ModelGridLayout& layout, const FigureInput& input)
{
    const qkv::ModelOverview& overview = *input.overview;
    const FigureOptions& options = input.options;
    const double scale = deviceScale(painter);
    const bool vector = isVectorDevice(painter);
    QColor frame = options.text;
    frame.setAlpha(60);
    for (int l = 0; l < layout.layers(); ++l) {
        for (int i = 0; i < layout.heads(); ++i) {
            const qkv::ModelHead head{l, i};
            const QRectF box = layout.thumbnail(l, i);
            const qkv::MatrixF* map = shownMap(overview, head, options);
            if (!map || map->size() == 0) {
                painter.fillRect(box, Colormap::neutralColor());
                continue;
            }
            const QRectF rect = layout.mapRect(l, i, map->rows(), map->cols());
            const double maxValue = options.valueWeighted ? std::max(1e-30f, map->maxCoeff()) : 1.0;
            const QSize pixels(std::max(1, static_cast<int>(std::floor(rect.width() * scale + 1e-6))),
                               std::max(1, static_cast<int>(std::floor(rect.height() * scale + 1e-6))));
            painter.setRenderHint(QPainter::SmoothPixmapTransform, false);
            painter.drawImage(rect, mapImage(*map, maxValue, pixels, vector));
            if (overview.isAblated(head)) paintSwitchedOff(painter, rect);
            else paintRole(painter, rect, roleText(overview.statistics, l, i));
            painter.setPen(QPen(frame, 0));
            painter.setBrush(Qt::NoBrush);
            painter.drawRect(rect);
        }
    }
}

void paintLabels(QPainter& painter, const ModelGridLayout& layout, const FigureInput& input, int shownLayer)
{
    const qkv::ModelOverview& overview = *input.overview;
    const FigureOptions& options = input.options;
    const QFontMetricsF metrics(painter.font(), painter.device());
    painter.setPen(options.text);
    painter.drawText(layout.headAxisTitleRect(), Qt::AlignCenter, Text::tr("heads"));
    for (int i = 0; i < layout.heads(); ++i) {
        const QRectF rect = layout.headLabelRect(i);
        const QString full = headName(i);
        const QString text = metrics.horizontalAdvance(full) <= rect.width() ? full : QString::number(i + 1);
        const bool selected = options.showSelection && i == options.head;
        painter.setPen(selected ? emphasisColor(options) : options.text);
        painter.drawText(rect, Qt::AlignCenter, metrics.elidedText(text, Qt::ElideRight, rect.width() + 2));
    }
    const QStringList labels = layerLabels(overview);
    for (int l = 0; l < layout.layers(); ++l) {
        painter.setPen(options.showSelection && l == shownLayer ? emphasisColor(options) : options.text);
        const QRectF rect = layout.layerLabelRect(l);
        const QString window = layerWindowText(overview, l);
        if (layout.labelsAboveRows()) {  // one line over the row's maps
            const QString line = window.isEmpty() ? labels[l] : labels[l] + QStringLiteral(" · ") + window;
            painter.drawText(rect, Qt::AlignLeft | Qt::AlignTop, metrics.elidedText(line, Qt::ElideRight, rect.width()));
            continue;
        }
        // The window on a second line where the row has room for it (the tooltip says it always).
        const bool twoLines = !window.isEmpty() && rect.height() >= 2 * metrics.lineSpacing();
        const QString first = metrics.elidedText(labels[l], Qt::ElideRight, rect.width());
        const QString text =
            twoLines ? first + QLatin1Char('\n') + metrics.elidedText(window, Qt::ElideRight, rect.width()) : first;
        painter.drawText(rect, Qt::AlignRight | Qt::AlignVCenter, text);
    }
    painter.setPen(options.text);
    const QRectF axis = layout.layerAxisTitleRect();
    if (axis.isEmpty()) return;
    painter.save();
    painter.translate(axis.center());
    painter.rotate(-90);
    const QRectF rotated(-axis.height() / 2, -axis.width() / 2, axis.height(), axis.width());
    // The long title when the grid is tall enough for it, else the short one (never a cut word).
    const QString full = Text::tr("layers (index · kind)");
    const QString title = metrics.horizontalAdvance(full) <= rotated.width() ? full : Text::tr("layers");
    painter.drawText(rotated, Qt::AlignCenter, metrics.elidedText(title, Qt::ElideRight, rotated.width()));
    painter.restore();
}

// Each layer's tokens beside its maps (ModelGridLayout::showsTokens): queries left of the first
// map, keys turned under every map; labelledTokens picks those that fit without overlapping.
void paintTokens(QPainter& painter, const ModelGridLayout& layout, const qkv::ModelOverview& overview,
                 const FigureOptions& options)
{
    if (!layout.showsTokens()) return;
    const QFontMetricsF metrics(painter.font(), painter.device());
    const double line = metrics.height();
    QColor muted = options.text;
    muted.setAlpha(200);
    painter.setPen(muted);
    for (int l = 0; l < layout.layers(); ++l) {
        const auto [queries, keys] = mapShape(overview, l);
        if (queries <= 0 || keys <= 0) continue;
        const QStringList queryTexts = layerQueryTexts(overview, l), keyTexts = layerKeyTexts(overview, l);
        const QRectF first = layout.mapRect(l, 0, queries, keys);
        const QRectF band = layout.queryTokenRect(l);
        const double rowHeight = first.height() / static_cast<double>(queries);
        for (const int q : labelledTokens(queries, first.height(), line)) {
            if (q >= queryTexts.size()) break;
            const QRectF rect(band.left(), first.top() + (q + 0.5) * rowHeight - line / 2, band.width() - kPad, line);
            painter.drawText(rect, Qt::AlignRight | Qt::AlignVCenter,
                             metrics.elidedText(queryTexts[q], Qt::ElideRight, rect.width()));
        }
        for (int i = 0; i < layout.heads(); ++i) {
            const QRectF map = layout.mapRect(l, i, queries, keys);
            const QRectF under = layout.keyTokenRect(l, i);
            const double columnWidth = map.width() / static_cast<double>(keys);
            for (const int k : labelledTokens(keys, map.width(), line)) {
                if (k >= keyTexts.size()) break;
                painter.save();
                // Turned a quarter anticlockwise: each key's text reads upwards, ending under its column.
                painter.translate(map.left() + (k + 0.5) * columnWidth, under.top());
                painter.rotate(-90);
                const QRectF rect(-under.height(), -line / 2, under.height() - kPad, line);
                painter.drawText(rect, Qt::AlignRight | Qt::AlignVCenter,
                                 metrics.elidedText(keyTexts[k], Qt::ElideRight, rect.width()));
                painter.restore();
            }
        }
    }
}

void paintTitles(QPainter& painter, const ModelGridLayout& layout, const FigureInput& input)
{
    const qkv::ModelOverview& overview = *input.overview;
    const FigureOptions& options = input.options;
    paintFigureHeading(painter, layout.titleRect(), layout.subtitleRect(), Text::tr("Every layer's attention"),
                       subtitleText(overview, options.valueWeighted), options);
    painter.drawText(layout.noteRect(), Qt::AlignLeft | Qt::AlignTop | Qt::TextWordWrap, noteText());
}

}  // namespace

ModelGridLayout::ModelGridLayout(const QRectF& target, const qkv::ModelOverview& overview,
                                 const QFontMetricsF& metrics, double minimumThumbnail)
    : layers_(static_cast<int>(overview.layerCount())),
      heads_(layers_ > 0 ? static_cast<int>(overview.layer(0).attention.headCount()) : 0)
{
    for (int l = 0; l < layers_; ++l)
        heads_ = std::max(heads_, static_cast<int>(overview.layer(l).attention.headCount()));
    const double line = metrics.lineSpacing();
    labelHeight_ = line;
    double widest = 0;
    for (int l = 0; l < layers_; ++l)
        for (const QString& label : {layerLabel(overview.layer(l)), layerWindowText(overview, l)})
            widest = std::max(widest, metrics.horizontalAdvance(label));
    labelWidth_ = std::min(widest, metrics.averageCharWidth() * 16) + 3 * kPad;
    double widestToken = 0;
    for (int l = 0; l < layers_; ++l)
        for (const QStringList& texts : {layerQueryTexts(overview, l), layerKeyTexts(overview, l)})
            for (const QString& text : texts) widestToken = std::max(widestToken, metrics.horizontalAdvance(text));
    const double tokenBand = std::min(widestToken, metrics.averageCharWidth() * 9) + 2 * kPad;
    const double axisWidth = line + kPad;
    const double width = target.width() - 2 * kMargin;
    const double legendWidth = std::min(kLegendWidth, width);
    const double legendHeight =
        std::max(horizontalLegendHeight(metrics, legendWidth, legendLabel(false)),
                 horizontalLegendHeight(metrics, legendWidth, legendLabel(true)));
    const double noteHeight = metrics.boundingRect(QRectF(0, 0, width, 1000), Qt::TextWordWrap, noteText()).height();
    const double wrapWidth = std::max(target.width() - 2 * kMargin, 100.0);
    double subtitleHeight = line;  // one line, or as many as the longer subtitle wraps to
    for (bool valueWeighted : {false, true})
        subtitleHeight = std::max(subtitleHeight, metrics.boundingRect(QRectF(0, 0, wrapWidth, 1000), Qt::TextWordWrap,
                                                                       subtitleText(overview, valueWeighted))
                                                      .height());
    const double top = kMargin + line * 1.3 + subtitleHeight + kPad + 2 * line;  // title, subtitle, axis, labels
    const double bottom = kPad * 2 + legendHeight + kPad + noteHeight + kMargin;
    // The rows' labels left of the maps, or (when that leaves the maps small for want of width)
    // on a line above each row, which gives the maps the labels' width.
    struct Fit {
        double side = 0, gap = 6.0, band = 0, above = 0, left = 0;
    };
    const auto solve = [&](bool labelsAbove) {
        Fit f;
        f.above = labelsAbove ? line + kPad : 0.0;  // clear of the selection outline below it
        f.left = kMargin + (labelsAbove ? 0.0 : axisWidth + labelWidth_);
        const double availableWidth = target.width() - f.left - kMargin;
        const double availableHeight = target.height() - top - bottom;
        const auto side = [&](double gap, double band) {
            if (layers_ == 0 || heads_ == 0) return 0.0;
            return std::min((availableWidth - band - (heads_ - 1) * gap) / heads_,
                            (availableHeight - (layers_ - 1) * gap - layers_ * (band + f.above)) / layers_);
        };
        // Tokens beside the maps when the maps stay large with their bands: a map that shrinks
        // to a few lines would label too few tokens to read.
        f.side = side(f.gap, tokenBand);
        f.band = minimumThumbnail <= 0 && f.side >= kTokenLabelsFrom * line ? tokenBand : 0.0;
        if (f.band == 0) f.side = side(f.gap, 0);
        if (f.side < 24) f.side = side(f.gap = 2.0, 0);
        f.side = std::max({f.side, minimumThumbnail, 4.0});
        return f;
    };
    const Fit beside = solve(false), above = solve(true);
    const Fit& fit = above.side > beside.side * 1.15 ? above : beside;
    side_ = fit.side;
    gap_ = fit.gap;
    tokenBand_ = fit.band;
    rowTop_ = fit.above;
    const double left = fit.left;
    const double availableWidth = target.width() - left - kMargin;
    const double gridWidth = tokenBand_ + heads_ * side_ + std::max(0, heads_ - 1) * gap_;
    const double gridHeight = layers_ * (rowTop_ + side_ + tokenBand_) + std::max(0, layers_ - 1) * gap_;
    size_ = QSizeF(std::max(target.width(), left + gridWidth + kMargin),
                   std::max(target.height(), top + gridHeight + bottom));
    const double x0 = target.left() + left + std::max(0.0, (availableWidth - gridWidth) / 2);
    origin_ = QPointF(x0 + tokenBand_, target.top() + top);
    const double full = size_.width() - 2 * kMargin;
    title_ = QRectF(target.left() + kMargin, target.top() + kMargin, full, line * 1.3);
    subtitle_ = QRectF(title_.left(), title_.bottom(), full, subtitleHeight);
    headAxis_ = QRectF(origin_.x(), origin_.y() - 2 * line, gridWidth - tokenBand_, line);
    // Labels above the rows name them in place: no axis title beside them.
    layerAxis_ = rowTop_ > 0 ? QRectF() : QRectF(x0 - labelWidth_ - axisWidth, origin_.y(), axisWidth, gridHeight);
    gridWidth_ = gridWidth;
    const double legendTop = origin_.y() + gridHeight + kPad * 2;
    legend_ = QRectF(target.left() + kMargin, legendTop, std::min(kLegendWidth, full), legendHeight);
    note_ = QRectF(target.left() + kMargin, legend_.bottom() + kPad, full, noteHeight);
}

QRectF ModelGridLayout::thumbnail(int layer, int head) const
{
    return QRectF(origin_.x() + head * (side_ + gap_), origin_.y() + layer * (rowTop_ + side_ + tokenBand_ + gap_) + rowTop_,
                  side_, side_);
}

QRectF ModelGridLayout::queryTokenRect(int layer) const
{
    const QRectF box = thumbnail(layer, 0);
    return QRectF(box.left() - tokenBand_, box.top(), tokenBand_, box.height());
}

QRectF ModelGridLayout::keyTokenRect(int layer, int head) const
{
    const QRectF box = thumbnail(layer, head);
    return QRectF(box.left(), box.bottom(), box.width(), tokenBand_);
}

QRectF ModelGridLayout::mapRect(int layer, int head, qkv::Index queries, qkv::Index keys) const
{
    const QRectF box = thumbnail(layer, head);
    if (queries <= 0 || keys <= 0) return box;
    const double cell = side_ / static_cast<double>(std::max(queries, keys));
    const QSizeF size(cell * static_cast<double>(keys), cell * static_cast<double>(queries));
    return QRectF(box.left() + (side_ - size.width()) / 2, box.top() + (side_ - size.height()) / 2, size.width(),
                  size.height());
}

QRectF ModelGridLayout::headLabelRect(int head) const
{
    const QRectF box = thumbnail(0, head);
    return QRectF(box.left(), origin_.y() - labelHeight_ - kPad / 2, box.width(), labelHeight_);
}

QRectF ModelGridLayout::layerLabelRect(int layer) const
{
    const QRectF box = thumbnail(layer, 0);
    const double left = box.left() - tokenBand_;
    if (rowTop_ > 0) return QRectF(left, box.top() - rowTop_, gridWidth_, rowTop_);
    return QRectF(left - labelWidth_, box.top(), labelWidth_ - 2 * kPad, box.height());
}

qkv::ModelHead ModelGridLayout::headAt(const QPointF& point) const
{
    if (side_ <= 0) return {-1, -1};
    const int head = static_cast<int>(std::floor((point.x() - origin_.x()) / (side_ + gap_)));
    const int layer = static_cast<int>(std::floor((point.y() - origin_.y()) / (rowTop_ + side_ + tokenBand_ + gap_)));
    if (head < 0 || layer < 0 || head >= heads_ || layer >= layers_) return {-1, -1};
    if (!thumbnail(layer, head).contains(point)) return {-1, -1};  // in a gap
    return {layer, head};
}

QPoint mapCellAt(const ModelGridLayout& layout, const qkv::ModelOverview& overview, qkv::ModelHead head,
                 const QPointF& point)
{
    if (head.layer < 0 || head.layer >= overview.layerCount()) return {-1, -1};
    const auto [queries, keys] = mapShape(overview, head.layer);
    const QRectF rect = layout.mapRect(static_cast<int>(head.layer), static_cast<int>(head.head), queries, keys);
    if (!rect.contains(point) || queries <= 0 || keys <= 0) return {-1, -1};
    const int key = std::clamp(static_cast<int>((point.x() - rect.left()) / rect.width() * keys), 0, static_cast<int>(keys) - 1);
    const int query =
        std::clamp(static_cast<int>((point.y() - rect.top()) / rect.height() * queries), 0, static_cast<int>(queries) - 1);
    return {key, query};
}

QList<int> labelledTokens(qkv::Index n, double length, double line)
{
    QList<int> shown;
    if (n <= 0 || length <= 0 || line <= 0) return shown;
    const double cell = length / static_cast<double>(n);
    const auto step = static_cast<qkv::Index>(std::max(1.0, std::ceil(line / cell - 1e-9)));
    for (qkv::Index t = 0; t < n; t += step) shown << static_cast<int>(t);
    return shown;
}

MapShape mapShape(const qkv::ModelOverview& overview, qkv::Index layer)
{
    const qkv::AttentionResult& attention = overview.layer(layer).attention;
    if (attention.heads.empty()) return {};
    return {attention.heads.front().attention.rows(), attention.heads.front().attention.cols()};
}

const qkv::MatrixF* shownMap(const qkv::ModelOverview& overview, qkv::ModelHead head, const FigureOptions& options)
{
    if (head.layer < 0 || head.layer >= overview.layerCount()) return nullptr;
    const auto l = static_cast<std::size_t>(head.layer);
    const auto i = static_cast<std::size_t>(head.head);
    if (options.valueWeighted) {
        if (l >= overview.valueNorms.size() || i >= overview.valueNorms[l].heads.size()) return nullptr;
        return &overview.valueNorms[l].heads[i];
    }
    const qkv::AttentionResult& attention = overview.layer(head.layer).attention;
    return i < attention.heads.size() ? &attention.heads[i].attention : nullptr;
}

double modelGridHeight(const FigureInput& input, double width)
{
    if (!input.overview) return 0;
    QImage device(1, 1, QImage::Format_ARGB32_Premultiplied);  // logical pixels: 96 dpi
    device.setDotsPerMeterX(3780);
    device.setDotsPerMeterY(3780);
    const QFontMetricsF metrics(input.options.font, &device);
    // As tall as it likes: the thumbnails are then as wide as the width allows.
    const ModelGridLayout layout(QRectF(0, 0, width, 1e6), *input.overview, metrics);
    return std::ceil(layout.noteRect().bottom() + kMargin);
}

void paintModelGrid(QPainter& painter, const QRectF& target, const FigureInput& input, double minimumThumbnail)
{
    if (!input.overview) return;
    painter.save();
    painter.setFont(input.options.font);
    const QFontMetricsF metrics(painter.font(), painter.device());
    const ModelGridLayout layout(target, *input.overview, metrics, minimumThumbnail);
    const FigureOptions& options = input.options;
    const bool sameModel = input.result && input.result->wholeModel == input.overview->model;
    const int shownLayer = sameModel ? static_cast<int>(input.result->wholeModelLayer) : -1;
    paintTitles(painter, layout, input);
    paintThumbnails(painter, layout, input);
    paintLabels(painter, layout, input, shownLayer);
    paintTokens(painter, layout, *input.overview, options);
    if (options.showSelection && shownLayer >= 0 && shownLayer < layout.layers() && options.head >= 0 &&
        options.head < layout.heads()) {
        painter.setRenderHint(QPainter::Antialiasing, true);
        painter.setPen(QPen(kSelectionColor, 2.5));
        painter.setBrush(Qt::NoBrush);
        painter.drawRect(layout.thumbnail(shownLayer, static_cast<int>(options.head)).adjusted(-2, -2, 2, 2));
    }
    painter.setPen(options.text);
    paintColorLegend(painter, layout.legendRect(), ColormapName::Viridis, 0.0, 1.0, legendLabel(options.valueWeighted));
    painter.restore();
}

}  // namespace qkv::ui
