#include "ui/train/learned_spectrum.hpp"

#include <QCoreApplication>

#include <algorithm>
#include <array>
#include <cmath>

#include "ui/figures/figure_text.hpp"

namespace qkv::ui {
namespace {

// The Train tab's translation context (lupdate reads Text::tr).
struct Text {
    Q_DECLARE_TR_FUNCTIONS(qkv::ui::TrainTab)
};

// ColorBrewer Dark2: eight heads told apart, readable on light and dark backgrounds.
constexpr std::array<QRgb, 8> kHeadColors{0x1b9e77, 0xd95f02, 0x7570b3, 0xe7298a, 0x66a61e, 0xe6ab02, 0xa6761d, 0x666666};

// Float weights: singular values below this fraction of the largest are rounding, not structure.
constexpr double kFloatFloor = 1e-7;

}  // namespace

ChartModel learnedSpectrumModel(const TrainedVariant& variant, qkv::Index layer)
{
    ChartModel c;
    const qkv::Index d_model = variant.model ? variant.model->parameters.spec.d_model : 0;
    const qkv::Index d_k = variant.model ? variant.model->parameters.spec.d_k() : 0;
    // One line at the width a 1000 x 700 window leaves: every line the title takes is a line the
    // tick labels lose, and Qt elides them ("...") when the chart runs short of height.
    c.title = Text::tr("Each full W_i's σ_k; legend: rank at 99% energy");
    // The dashed line's legend entry stays as short as the heads' (a wide entry stacks the legend
    // one per row and leaves no room for the plot); the verdict above says what d_k bounds.
    c.x.title = Text::tr("k (dashed: a factored W_i's rank bound)");
    c.y.title = Text::tr("σ_k (log)");
    c.y.logarithmic = true;
    c.x.minimum = 0;
    c.x.maximum = static_cast<double>(d_model) + 1;
    double largest = 0;
    for (const qkv::HeadScores& s : variant.heads)
        if (s.layer == layer && !s.singularValues.empty()) largest = std::max(largest, s.singularValues.front());
    if (!(largest > 0) || !std::isfinite(largest)) return c;
    double smallest = largest;
    for (const qkv::HeadScores& s : variant.heads)
        if (s.layer == layer)
            for (double sigma : s.singularValues)
                if (sigma > largest * kFloatFloor) smallest = std::min(smallest, sigma);
    const double floor = std::pow(10.0, std::floor(std::log10(smallest)));
    c.y.minimum = floor;
    c.y.maximum = std::pow(10.0, std::ceil(std::log10(largest) + 0.05));
    for (const qkv::HeadScores& s : variant.heads) {
        if (s.layer != layer || s.singularValues.empty()) continue;
        const QColor color(kHeadColors[static_cast<std::size_t>(s.head) % kHeadColors.size()]);
        ChartSeries line = ChartSeries::of(Text::tr("%1: %2").arg(headName(s.head)).arg(s.effectiveRank), color,
                                           ChartSeries::Kind::Line);
        line.lineMarkers = s.singularValues.size() <= 32;
        for (std::size_t k = 0; k < s.singularValues.size(); ++k)
            line.points.emplace_back(static_cast<double>(k + 1), std::max(s.singularValues[k], floor));
        c.series.push_back(std::move(line));
    }
    // Where the factored form stops: W_i^Q (W_i^K)^T has rank at most d_k, so a full W_i whose
    // values fall off before this line did not need its extra parameters.
    if (d_k > 0 && d_k < d_model) {
        ChartSeries reference = ChartSeries::of(
            Text::tr("k = d_k = %1").arg(d_k), QColor(0x55, 0x55, 0x55),
            ChartSeries::Kind::Line);
        reference.lineStyle = Qt::DashLine;
        reference.lineMarkers = false;
        reference.points = {QPointF(static_cast<double>(d_k), c.y.minimum), QPointF(static_cast<double>(d_k), c.y.maximum)};
        c.series.push_back(std::move(reference));
    }
    return c;
}

}  // namespace qkv::ui
