#include "ui/heads/heads_figure.hpp"

#include <QCoreApplication>

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/common/finite_range.hpp"
#include "core/ops/block_pooling.hpp"
#include "ui/background/work_pool.hpp"
#include "ui/figures/figure_text.hpp"
#include "ui/figures/number_format.hpp"
#include "ui/heads/pooled_panels.hpp"
#include "ui/heads/value_norms_cache.hpp"
#include "ui/render/heatmap_painter.hpp"

namespace qkv::ui {
namespace {

// The translation context of this file's visible text (lupdate reads Text::tr).
struct Text {
    Q_DECLARE_TR_FUNCTIONS(qkv::ui::HeadsFigure)
};

// What the colour scale is chosen from: the finite range of every panel, and every stride-th
// finite value of each (from its first), for a percentile.
struct PanelValues {
    qkv::FiniteRange range;
    std::vector<float> sample;
};

// One pass over each panel (3.1 M values at n = 512, h = 12), the panels side by side on idle
// threads of the work pool.
std::vector<PanelValues> panelValues(const std::vector<std::shared_ptr<const qkv::MatrixF>>& panels, Index stride)
{
    std::vector<PanelValues> values(panels.size());
    forEachOnIdleThreads(static_cast<int>(panels.size()), [&](int p) {
        const qkv::MatrixF& m = *panels[static_cast<std::size_t>(p)];
        PanelValues& v = values[static_cast<std::size_t>(p)];
        v.range = qkv::finiteRange({m.data(), static_cast<std::size_t>(m.size())});
        if (stride <= 0) return;
        v.sample.reserve(static_cast<std::size_t>(m.size() / stride + 1));
        for (Index i = 0; i < m.size(); i += stride)
            if (std::isfinite(m.data()[i])) v.sample.push_back(m.data()[i]);
    });
    return values;
}

// The q-quantile of the panels' samples (at most ~200k values in all).
double upperPercentile(const std::vector<PanelValues>& panels, double q)
{
    std::vector<float> values;
    for (const PanelValues& p : panels) values.insert(values.end(), p.sample.begin(), p.sample.end());
    if (values.empty()) return 1.0;
    const auto nth = values.begin() + static_cast<std::ptrdiff_t>(q * static_cast<double>(values.size() - 1));
    std::nth_element(values.begin(), nth, values.end());
    return *nth;
}

}  // namespace

HeadsFigure::HeadsFigure(std::shared_ptr<const qkv::Result> result, const HeadsFigureSpec& spec)
    : result_(std::move(result)), spec_(spec)
{
    if (!result_) return;
    if (result_->streamed()) {
        PooledPanels pooled =
            pooledPanels(*result_, spec_.kind == ScoreKind::Attention, spec_.blockMaxima, spec_.withAverage);
        panels_ = std::move(pooled.panels);
        error_ = pooled.error;
        rowEdges_ = std::move(pooled.rowEdges);
        columnEdges_ = std::move(pooled.columnEdges);
        rowLabels_ = pooledLabels(rowEdges_, result_->queryLabels);
        columnLabels_ = pooledLabels(columnEdges_, result_->keyLabels);
        chooseRange();
        return;
    }
    const qkv::AttentionResult& attention = result_->attention;
    const auto heads = static_cast<std::size_t>(attention.headCount());
    // A panel that is the result's own matrix shares the result's ownership (aliasing), so
    // copies of the figure stay valid.
    const auto ofResult = [this](const qkv::MatrixF& m) { return std::shared_ptr<const qkv::MatrixF>(result_, &m); };
    const auto owned = [](qkv::MatrixF m) { return std::make_shared<const qkv::MatrixF>(std::move(m)); };
    const bool anyMask = attention.mask.causal || !attention.mask.keyPadding.empty();
    // Masked pairs are drawn hatched (NaN), not as a weight or norm of 0 that looks computed.
    const auto hatched = [&](const qkv::MatrixF& m) {
        qkv::MatrixF shown = m;
        attention.mask.fillMasked(shown, std::numeric_limits<float>::quiet_NaN());
        return owned(std::move(shown));
    };
    if (spec_.kind == ScoreKind::ValueWeighted) {
        const auto norms = valueNormsOf(result_);
        if (!norms->ok()) {
            error_ = QString::fromStdString(norms->error());
        } else {
            valueNorms_ = std::shared_ptr<const qkv::ValueNorms>(norms, &norms->value());
            const auto ofNorms = [&](const qkv::MatrixF& m) {
                return anyMask ? hatched(m) : std::shared_ptr<const qkv::MatrixF>(valueNorms_, &m);
            };
            for (const qkv::MatrixF& head : valueNorms_->heads) panels_.push_back(ofNorms(head));
            // The layer's own norm (heads switched off left out by core), not a mean of norms.
            if (spec_.withAverage && heads > 0) panels_.push_back(ofNorms(valueNorms_->layer));
        }
    } else {
        for (std::size_t h = 0; h < heads; ++h) {
            const qkv::HeadAttention& head = attention.heads[h];
            switch (spec_.kind) {
            case ScoreKind::Attention:
                panels_.push_back(anyMask ? hatched(head.attention) : ofResult(head.attention));
                break;
            case ScoreKind::ScaledScores: panels_.push_back(ofResult(head.scores)); break;
            case ScoreKind::MaskedScores: {
                qkv::MatrixF masked = head.scores;
                attention.mask.fillMasked(masked, -std::numeric_limits<float>::infinity());
                panels_.push_back(owned(std::move(masked)));
                break;
            }
            case ScoreKind::ValueWeighted: break;
            }
        }
        if (spec_.withAverage && heads > 0) {
            // Mean over heads of what is shown (masked entries stay masked).
            qkv::MatrixF average = *panels_.front();
            for (std::size_t h = 1; h < heads; ++h) average += *panels_[h];
            average /= static_cast<float>(heads);
            panels_.push_back(owned(std::move(average)));
        }
    }
    rowLabels_ = tokenTexts(result_->queryLabels);
    columnLabels_ = tokenTexts(result_->keyLabels);
    chooseRange();
}

void HeadsFigure::chooseRange()
{
    const bool weights = spec_.kind == ScoreKind::Attention;
    const bool norms = spec_.kind == ScoreKind::ValueWeighted;  // >= 0, no upper bound
    // Weights and norms on the automatic scale end at a percentile: a sample of ~200k values.
    const bool percentile = (weights || norms) && spec_.colorRange.mode == qkv::ColorRange::Mode::Automatic;
    Index total = 0;
    for (const auto& m : panels_) total += m->size();
    const std::vector<PanelValues> values = panelValues(panels_, percentile ? std::max<Index>(1, total / 200000) : 0);
    qkv::FiniteRange range;
    for (const PanelValues& v : values) range.include(v.range);
    const double smallest = range.smallest, largest = range.largest, largestMagnitude = range.largestMagnitude;
    switch (spec_.colorRange.mode) {
    case qkv::ColorRange::Mode::Automatic:
        if (weights || norms) {
            // With many keys most weights are tiny: the scale ends at the 99th percentile
            // (rounded up), so structure stays visible; the few larger values saturate.
            minValue_ = 0;
            const double top = niceCeiling(upperPercentile(values, 0.99));
            maxValue_ = weights ? std::min(1.0, top) : (top > 0 ? top : 1.0);
        } else {
            maxValue_ = niceCeiling(largestMagnitude);
            minValue_ = -maxValue_;
        }
        break;
    case qkv::ColorRange::Mode::UnitInterval:
        // The whole range the quantity can take here: [0, 1] for a weight, [0, largest] for a
        // norm (nothing saturates), [-1, 1] for scores.
        minValue_ = weights || norms ? 0.0 : -1.0;
        maxValue_ = norms ? (largest > 0 && std::isfinite(largest) ? niceCeiling(largest) : 1.0) : 1.0;
        break;
    case qkv::ColorRange::Mode::Fixed:
        minValue_ = spec_.colorRange.low;
        maxValue_ = spec_.colorRange.high > spec_.colorRange.low ? spec_.colorRange.high : spec_.colorRange.low + 1;
        break;
    }
    const double tolerance = (maxValue_ - minValue_) * 1e-6;
    saturates_ = std::isfinite(largest) && (largest > maxValue_ + tolerance || smallest < minValue_ - tolerance);
}

QString HeadsFigure::legendLabel() const
{
    const bool scores = spec_.kind == ScoreKind::ScaledScores || spec_.kind == ScoreKind::MaskedScores;
    const bool norms = spec_.kind == ScoreKind::ValueWeighted;
    QString quantity = scoreKindLegend(spec_.kind);
    if (pooled())
        quantity = spec_.blockMaxima ? Text::tr("%1, each block's largest").arg(quantity)
                                     : Text::tr("%1, each block's mean").arg(quantity);
    if (scores && result_ && !result_->config.scaleScores)
        quantity = Text::tr("%1 (this layer does not divide by √d_k)").arg(quantity);
    if (norms && hasAverage()) quantity = Text::tr("%1; layer: ‖Σ a·f(x)‖ over the heads").arg(quantity);
    const QString low = readableNumber(minValue_), high = readableNumber(maxValue_);
    QString range;
    switch (spec_.colorRange.mode) {
    case qkv::ColorRange::Mode::Automatic:
        range = !scores ? Text::tr("automatic scale: 0 to the 99th percentile, %1").arg(high)
                        : Text::tr("automatic scale: ±%1, the largest magnitude").arg(high);
        break;
    case qkv::ColorRange::Mode::UnitInterval:
        range =
            norms ? Text::tr("scale 0 to %1, the largest value").arg(high) : Text::tr("scale %1 to %2").arg(low, high);
        break;
    case qkv::ColorRange::Mode::Fixed: range = Text::tr("fixed scale %1 to %2").arg(low, high); break;
    }
    if (saturates_) range += Text::tr("; values beyond it saturate");
    return Text::tr("%1 (%2)").arg(quantity, range);
}

int HeadsFigure::headOfPanel(int panel) const
{
    if (spec_.withAverage && panel == panelCount() - 1) return -1;
    return panel;
}

QString HeadsFigure::panelTitle(int panel) const
{
    const int head = headOfPanel(panel);
    if (head >= 0) return headTitle(head, spec_.headTitles);
    if (pooled() && spec_.blockMaxima) return Text::tr("Mean of %1 heads' block maxima").arg(panelCount() - 1);
    if (spec_.kind != ScoreKind::ValueWeighted) return Text::tr("Average of %1 heads").arg(panelCount() - 1);
    const qkv::AttentionResult& attention = result_->attention;
    const auto off = std::count(attention.ablated.begin(), attention.ablated.end(), true);
    if (off == 0) return Text::tr("Layer (all heads)");
    return Text::tr("Layer (all heads but %n switched off)", nullptr, static_cast<int>(off));
}

int HeadsFigure::rows() const { return panels_.empty() ? 0 : static_cast<int>(panels_.front()->rows()); }

int HeadsFigure::columns() const { return panels_.empty() ? 0 : static_cast<int>(panels_.front()->cols()); }

QString HeadsFigure::caption() const
{
    if (!result_) return Text::tr("No result yet");
    if (!error_.isEmpty())
        return Text::tr("%1 · %2 cannot be computed: %3")
            .arg(modeTitle(result_->config.mode), scoreKindName(spec_.kind), error_);
    const QString caption = Text::tr("%1 · %2 · %3")
                                .arg(modeTitle(result_->config.mode), scoreKindName(spec_.kind), shapesLine(*result_));
    if (!pooled()) return caption;
    // Blocks as equal as the sizes allow: the widest says how coarse the overview is.
    const auto widest = [](const std::vector<qkv::Index>& edges) {
        qkv::Index most = 0;
        for (std::size_t b = 0; b + 1 < edges.size(); ++b) most = std::max(most, edges[b + 1] - edges[b]);
        return most;
    };
    return Text::tr("%1 · in %2 × %3 blocks of up to %4 × %5 positions")
        .arg(caption)
        .arg(rows())
        .arg(columns())
        .arg(widest(rowEdges_))
        .arg(widest(columnEdges_));
}

int HeadsFigure::rowOfPosition(qkv::Index query) const
{
    return pooled() ? static_cast<int>(qkv::blockOfPosition(rowEdges_, query)) : static_cast<int>(query);
}

int HeadsFigure::columnOfPosition(qkv::Index key) const
{
    return pooled() ? static_cast<int>(qkv::blockOfPosition(columnEdges_, key)) : static_cast<int>(key);
}

qkv::Index HeadsFigure::positionOfRow(int row) const { return rowPositions(row).first; }

qkv::Index HeadsFigure::positionOfColumn(int column) const { return columnPositions(column).first; }

std::pair<qkv::Index, qkv::Index> HeadsFigure::rowPositions(int row) const
{
    if (!pooled() || row < 0 || row + 1 >= static_cast<int>(rowEdges_.size())) return {row, row + 1};
    return {rowEdges_[static_cast<std::size_t>(row)], rowEdges_[static_cast<std::size_t>(row) + 1]};
}

std::pair<qkv::Index, qkv::Index> HeadsFigure::columnPositions(int column) const
{
    if (!pooled() || column < 0 || column + 1 >= static_cast<int>(columnEdges_.size())) return {column, column + 1};
    return {columnEdges_[static_cast<std::size_t>(column)], columnEdges_[static_cast<std::size_t>(column) + 1]};
}

QString HeadsFigure::rowAxisTitle() const { return result_ ? queryAxisTitle(result_->config.mode) : QString(); }

QString HeadsFigure::columnAxisTitle() const { return result_ ? keyAxisTitle(result_->config.mode) : QString(); }

const QImage& HeadsFigure::image(int panel, ColormapName colormap) const
{
    if (images_.size() != panels_.size() || imagesColormap_ != colormap) {
        images_.assign(panels_.size(), QImage());
        reducedImages_.assign(panels_.size(), QImage());
        halvings_.assign(panels_.size(), {});
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
    const QSize wanted(std::min(pixels.width(), full.width()), std::min(pixels.height(), full.height()));
    QImage& reduced = reducedImages_[static_cast<std::size_t>(panel)];
    if (reduced.size() == wanted) return reduced;
    // From the smallest prepared halving with at least twice the pixels wanted each way: the
    // last step then still averages whole blocks, as from the full image.
    const QImage* source = &full;
    for (const QImage& half : halvings_[static_cast<std::size_t>(panel)])
        if (half.width() >= 2 * wanted.width() && half.height() >= 2 * wanted.height()) source = &half;
    reduced = source->scaled(wanted, Qt::IgnoreAspectRatio, Qt::SmoothTransformation);
    return reduced;
}

void HeadsFigure::prepareImages(ColormapName colormap, const QSize& shownPixels) const
{
    if (panels_.empty()) return;
    image(0, colormap);  // the caches, sized for `colormap` before the panels are made side by side
    // Each panel writes only its own entries of the caches (their sizes are fixed now).
    forEachOnIdleThreads(panelCount(), [&](int panel) { preparePanel(panel, colormap, shownPixels); });
}

void HeadsFigure::preparePanel(int panel, ColormapName colormap, const QSize& shownPixels) const
{
    constexpr int kSmallestHalving = 256;
    const QImage* last = &image(panel, colormap);
    std::vector<QImage>& halvings = halvings_[static_cast<std::size_t>(panel)];
    halvings.clear();
    halvings.reserve(16);
    while (!last->isNull() && std::max(last->width(), last->height()) > 2 * kSmallestHalving) {
        const QSize half((last->width() + 1) / 2, (last->height() + 1) / 2);
        halvings.push_back(last->scaled(half, Qt::IgnoreAspectRatio, Qt::SmoothTransformation));
        last = &halvings.back();
    }
    if (shownPixels.isValid()) imageForPixels(panel, colormap, shownPixels);
}

}  // namespace qkv::ui
