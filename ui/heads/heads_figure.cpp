#include "ui/heads/heads_figure.hpp"

#include <QCoreApplication>
#include <QPainter>

#include <algorithm>
#include <cmath>
#include <limits>

#include "ui/render/heatmap_layout.hpp"
#include "ui/render/heatmap_painter.hpp"

namespace qkv::ui {
namespace {

constexpr double kGap = 14.0;      // between panels
constexpr double kMargin = 8.0;    // around the figure
constexpr double kMinHeatSide = 110.0;  // a heatmap never gets smaller than this (px)
constexpr double kMaxFitCell = 56.0;    // at zoom 1, cells stop growing here

QString tr(const char* text) { return QCoreApplication::translate("HeadsFigure", text); }

QStringList toLabels(const std::vector<std::string>& labels)
{
    QStringList out;
    out.reserve(static_cast<qsizetype>(labels.size()));
    for (const std::string& label : labels) out << QString::fromStdString(label);
    return out;
}

QString modeTitle(qkv::AttentionMode mode)
{
    switch (mode) {
    case qkv::AttentionMode::EncoderSelf: return tr("Encoder self-attention");
    case qkv::AttentionMode::DecoderCausal: return tr("Decoder masked self-attention");
    case qkv::AttentionMode::Cross: return tr("Cross-attention");
    }
    return {};
}

// Rounds up to 1, 2, 2.5 or 5 x 10^k, so legend ends are round numbers.
double niceCeil(double value)
{
    if (!(value > 0)) return 1.0;
    const double magnitude = std::pow(10.0, std::floor(std::log10(value)));
    for (double factor : {1.0, 2.0, 2.5, 5.0, 10.0})
        if (factor * magnitude >= value * (1 - 1e-9)) return factor * magnitude;
    return 10.0 * magnitude;
}

// The q-quantile of the finite values of all panels (sampled to at most ~200k values).
double upperPercentile(const std::vector<std::shared_ptr<const qkv::MatrixF>>& panels, double q)
{
    Index total = 0;
    for (const auto& m : panels) total += m->size();
    const Index stride = std::max<Index>(1, total / 200000);
    std::vector<float> values;
    values.reserve(static_cast<std::size_t>(total / stride + panels.size()));
    for (const auto& m : panels)
        for (Index i = 0; i < m->size(); i += stride)
            if (std::isfinite(m->data()[i])) values.push_back(m->data()[i]);
    if (values.empty()) return 1.0;
    const auto nth = values.begin() + static_cast<std::ptrdiff_t>(q * static_cast<double>(values.size() - 1));
    std::nth_element(values.begin(), nth, values.end());
    return *nth;
}

}  // namespace

HeadsFigure::HeadsFigure(std::shared_ptr<const qkv::Result> result, ScoreKind kind, bool withAverage)
    : result_(std::move(result)), kind_(kind), withAverage_(withAverage)
{
    if (!result_) return;
    const qkv::AttentionResult& attention = result_->attention;
    const auto heads = static_cast<std::size_t>(attention.headCount());
    // A panel that is the result's own matrix shares the result's ownership (aliasing), so
    // copies of the figure stay valid.
    const auto ofResult = [this](const qkv::MatrixF& m) { return std::shared_ptr<const qkv::MatrixF>(result_, &m); };
    const auto owned = [](qkv::MatrixF m) { return std::make_shared<const qkv::MatrixF>(std::move(m)); };
    for (std::size_t h = 0; h < heads; ++h) {
        const qkv::HeadAttention& head = attention.heads[h];
        switch (kind_) {
        case ScoreKind::Attention: {
            const bool anyMask = attention.mask.causal || !attention.mask.keyPadding.empty();
            if (!anyMask) {
                panels_.push_back(ofResult(head.attention));
                break;
            }
            // Masked pairs are drawn hatched (NaN), not as a weight of 0 that looks computed.
            qkv::MatrixF shown = head.attention;
            attention.mask.fillMasked(shown, std::numeric_limits<float>::quiet_NaN());
            panels_.push_back(owned(std::move(shown)));
            break;
        }
        case ScoreKind::RawScores: panels_.push_back(ofResult(head.scores)); break;
        case ScoreKind::MaskedScores: {
            qkv::MatrixF masked = head.scores;
            attention.mask.fillMasked(masked, -std::numeric_limits<float>::infinity());
            panels_.push_back(owned(std::move(masked)));
            break;
        }
        }
    }
    if (withAverage_ && heads > 0) {
        // Mean over heads of what is shown (masked entries stay masked).
        qkv::MatrixF average = *panels_.front();
        for (std::size_t h = 1; h < heads; ++h) average += *panels_[h];
        average /= static_cast<float>(heads);
        panels_.push_back(owned(std::move(average)));
    }
    rowLabels_ = toLabels(result_->queryLabels);
    columnLabels_ = toLabels(result_->keyLabels);

    double largest = 0;
    for (const auto& m : panels_)
        for (Index i = 0; i < m->size(); ++i) {
            const double v = m->data()[i];
            if (std::isfinite(v)) largest = std::max(largest, std::abs(v));
        }
    if (kind_ == ScoreKind::Attention) {
        // With many keys most weights are tiny: the colour scale ends at the 99th percentile
        // (rounded up), so structure stays visible; the few larger weights saturate, and the
        // legend says so.
        minValue_ = 0;
        maxValue_ = std::min(1.0, niceCeil(upperPercentile(panels_, 0.99)));
        saturates_ = largest > maxValue_ * (1 + 1e-6);
    } else {
        maxValue_ = niceCeil(largest);
        minValue_ = -maxValue_;
    }
}

QString HeadsFigure::legendLabel() const
{
    if (!saturates_) return scoreKindLegend(kind_);
    return tr("%1 (saturates at %2)").arg(scoreKindLegend(kind_)).arg(maxValue_);
}

int HeadsFigure::headOfPanel(int panel) const
{
    if (withAverage_ && panel == panelCount() - 1) return -1;
    return panel;
}

QString HeadsFigure::panelTitle(int panel) const
{
    const int head = headOfPanel(panel);
    if (head < 0) return tr("Average of %1 heads").arg(panelCount() - 1);
    if (head < headTitles_.size() && !headTitles_[head].isEmpty())
        return tr("Head %1 · %2").arg(head + 1).arg(headTitles_[head]);
    return tr("Head %1").arg(head + 1);
}

int HeadsFigure::rows() const { return panels_.empty() ? 0 : static_cast<int>(panels_.front()->rows()); }

int HeadsFigure::columns() const { return panels_.empty() ? 0 : static_cast<int>(panels_.front()->cols()); }

QString HeadsFigure::caption() const
{
    if (!result_) return tr("No result yet");
    const qkv::Config& c = result_->config;
    return tr("%1 · %2 · n_q = %3, n_k = %4 · d_model = %5, h = %6, d_k = %7")
        .arg(modeTitle(c.mode), scoreKindName(kind_))
        .arg(rows())
        .arg(columns())
        .arg(c.d_model)
        .arg(c.headCount)
        .arg(c.d_k());
}

const QImage& HeadsFigure::image(int panel, ColormapName colormap) const
{
    if (images_.size() != panels_.size() || imagesColormap_ != colormap) {
        images_.assign(panels_.size(), QImage());
        reducedImages_.assign(panels_.size(), QImage());
        imagesColormap_ = colormap;
    }
    QImage& image = images_[static_cast<std::size_t>(panel)];
    if (image.isNull()) image = heatmapImage(this->panel(panel), colormap, minValue_, maxValue_);
    return image;
}

const QImage& HeadsFigure::imageForPixels(int panel, ColormapName colormap, const QSize& pixels) const
{
    const QImage& full = image(panel, colormap);
    if (full.isNull() || (pixels.width() >= full.width() && pixels.height() >= full.height())) return full;
    if (reducedImages_.size() != panels_.size()) reducedImages_.assign(panels_.size(), QImage());
    const QSize wanted(std::min(pixels.width(), full.width()), std::min(pixels.height(), full.height()));
    QImage& reduced = reducedImages_[static_cast<std::size_t>(panel)];
    if (reduced.size() != wanted) {
        reduced = full.scaled(wanted, Qt::IgnoreAspectRatio, Qt::SmoothTransformation);
    }
    return reduced;
}

HeatmapStyle panelStyle(const HeadsFigure& figure, int panel, const HeadsFigureState& state)
{
    HeatmapStyle style;
    style.colormap = state.colormap;
    style.minValue = figure.minValue();
    style.maxValue = figure.maxValue();
    style.rowLabels = figure.rowLabels();
    style.columnLabels = figure.columnLabels();
    style.title = figure.panelTitle(panel);
    style.highlightedRow = state.highlightedRow;
    if (panel == state.highlightedPanel) style.highlightedCell = state.highlightedCell;
    style.textColor = state.text;
    style.selected = panel == state.selectedPanel;
    style.selectionColor = state.selection;
    return style;
}

HeadsGridLayout layoutHeadsGrid(const HeadsFigure& figure, const QSizeF& available, double zoom,
                                const QFontMetricsF& metrics)
{
    HeadsGridLayout layout;
    const int count = figure.panelCount();
    const double width = std::max(available.width(), 200.0);
    // Caption and legend side by side when both fit whole; otherwise the legend goes on its own
    // row under the caption, so neither is wrapped into the other.
    const double legendRowHeight = metrics.height() * 2.6 + 8;
    const double captionWidth = metrics.horizontalAdvance(figure.caption()) + 12;
    const double legendWidth = std::max(metrics.horizontalAdvance(figure.legendLabel()) + 24, 280.0);
    const double headerWidth = width - 2 * kMargin;
    double headerHeight = legendRowHeight;
    if (captionWidth + kGap + legendWidth <= headerWidth) {
        layout.caption = QRectF(kMargin, kMargin, captionWidth, legendRowHeight);
        const double legendLeft = std::max(kMargin + captionWidth + kGap, width - kMargin - std::min(legendWidth * 1.3, 520.0));
        layout.legend = QRectF(legendLeft, kMargin, width - kMargin - legendLeft, legendRowHeight);
    } else {
        const double captionLines = std::ceil(captionWidth / std::max(headerWidth, 1.0));
        const double captionHeight = captionLines * metrics.lineSpacing() + 4;
        layout.caption = QRectF(kMargin, kMargin, headerWidth, captionHeight);
        layout.legend = QRectF(kMargin, kMargin + captionHeight, std::min(headerWidth, std::max(legendWidth, 360.0)),
                               legendRowHeight);
        headerHeight = captionHeight + legendRowHeight;
    }
    if (count == 0 || figure.rows() == 0 || figure.columns() == 0) {
        layout.size = QSizeF(width, headerHeight + 2 * kMargin);
        return layout;
    }
    HeadsFigureState state;
    const QMarginsF gutters = HeatmapLayout::gutters(panelStyle(figure, 0, state), metrics);
    const double gutterWidth = gutters.left() + gutters.right() + 6;
    const double gutterHeight = gutters.top() + gutters.bottom() + 6;
    const double nq = figure.rows(), nk = figure.columns();
    const double innerWidth = width - 2 * kMargin;
    const double innerHeight = std::max(available.height() - headerHeight - 3 * kMargin, 100.0);

    // Zoom 1: the column count that gives the biggest cells with everything visible.
    double bestCell = 0;
    int bestColumns = 1;
    for (int columns = 1; columns <= count; ++columns) {
        const int rows = (count + columns - 1) / columns;
        const double panelWidth = (innerWidth - (columns - 1) * kGap) / columns;
        const double panelHeight = (innerHeight - (rows - 1) * kGap) / rows;
        const double cell = std::min((panelWidth - gutterWidth) / nk, (panelHeight - gutterHeight) / nq);
        if (cell > bestCell) {
            bestCell = cell;
            bestColumns = columns;
        }
    }
    double cell = std::min(bestCell, kMaxFitCell) * zoom;
    cell = std::max(cell, kMinHeatSide / std::max(nq, nk));  // never unreadably small
    const double panelWidth = gutterWidth + nk * cell;
    const double panelHeight = gutterHeight + nq * cell;
    int columns = bestColumns;
    if (cell > bestCell + 1e-9 || panelWidth * columns + (columns - 1) * kGap > innerWidth)
        columns = std::clamp(static_cast<int>((innerWidth + kGap) / (panelWidth + kGap)), 1, count);
    const int rows = (count + columns - 1) / columns;

    // Centre the grid horizontally when it is narrower than the viewport.
    const double gridWidth = columns * panelWidth + (columns - 1) * kGap;
    const double left = kMargin + std::max(0.0, (innerWidth - gridWidth) / 2);
    const double top = kMargin + headerHeight + kMargin;
    for (int p = 0; p < count; ++p) {
        const int r = p / columns, c = p % columns;
        layout.panels.emplace_back(left + c * (panelWidth + kGap), top + r * (panelHeight + kGap), panelWidth,
                                   panelHeight);
    }
    layout.cellSize = cell;
    layout.columns = columns;
    layout.size = QSizeF(std::max(width, gridWidth + 2 * kMargin), top + rows * panelHeight + (rows - 1) * kGap + kMargin);
    return layout;
}

void paintHeadsFigure(QPainter& painter, const HeadsFigure& figure, const HeadsGridLayout& layout,
                      const HeadsFigureState& state)
{
    painter.save();
    painter.fillRect(QRectF(QPointF(0, 0), layout.size), state.background);
    painter.setPen(state.text);
    const QFontMetricsF metrics(painter.font(), painter.device());
    const QString caption = figure.caption();
    painter.drawText(layout.caption, Qt::AlignLeft | Qt::AlignVCenter | Qt::TextWordWrap, caption);
    if (figure.panelCount() > 0) {
        const double legendHeight = std::min(layout.legend.height(), metrics.height() * 2.6);
        const QRectF legend(layout.legend.left(), layout.legend.center().y() - legendHeight / 2,
                            layout.legend.width(), legendHeight);
        paintColorLegend(painter, legend, state.colormap, figure.minValue(), figure.maxValue(),
                         figure.legendLabel());
    }
    for (int p = 0; p < figure.panelCount() && p < static_cast<int>(layout.panels.size()); ++p) {
        const HeatmapStyle style = panelStyle(figure, p, state);
        const QTransform t = painter.deviceTransform();
        const double scale = std::max(std::hypot(t.m11(), t.m12()), std::hypot(t.m21(), t.m22()));
        const QSize pixels(static_cast<int>(std::round(figure.columns() * layout.cellSize * scale)),
                           static_cast<int>(std::round(figure.rows() * layout.cellSize * scale)));
        paintHeatmap(painter, layout.panels[static_cast<std::size_t>(p)], figure.panel(p), style,
                     figure.imageForPixels(p, state.colormap, pixels));
    }
    painter.restore();
}

}  // namespace qkv::ui
