#include "ui/train/training_curves.hpp"

#include <QCoreApplication>
#include <QStringList>

#include <cmath>
#include <limits>

#include "ui/train/variant_text.hpp"

namespace qkv::ui {
namespace {

// The Train tab's translation context (lupdate reads Text::tr).
struct Text {
    Q_DECLARE_TR_FUNCTIONS(qkv::ui::TrainTab)
};

// (step, value) of every point where `value` is a number (held-out values exist only at
// evaluation steps).
template <class Value>
std::vector<QPointF> pointsOf(const std::vector<qkv::CurvePoint>& curve, Value value)
{
    std::vector<QPointF> out;
    for (const qkv::CurvePoint& p : curve)
        if (const double v = value(p); std::isfinite(v)) out.emplace_back(static_cast<double>(p.step), v);
    return out;
}

Curve curve(const TrainedVariant& v, const QString& what, Qt::PenStyle style, std::vector<QPointF> points)
{
    return {QStringLiteral("%1 · %2").arg(variantName(v.variant()), what), variantColor(v.variant()), style,
            std::move(points)};
}

}  // namespace

std::vector<Curve> lossCurves(const TrainingSnapshot& s)
{
    std::vector<Curve> out;
    for (const TrainedVariant& v : s.variants) {
        const auto& c = v.model->curve;
        // Step 0 is the untrained model's evaluation: no batch was trained on there.
        out.push_back(curve(v, Text::tr("training"), Qt::SolidLine, pointsOf(c, [](auto& p) {
                                return p.step > 0 ? p.loss : std::numeric_limits<double>::quiet_NaN();
                            })));
        out.push_back(curve(v, Text::tr("held-out"), Qt::DashLine, pointsOf(c, [](auto& p) { return p.heldOutLoss; })));
    }
    return out;
}

std::vector<Curve> accuracyCurves(const TrainingSnapshot& s)
{
    std::vector<Curve> out;
    const bool sequences = !s.targetTokens.empty();
    for (const TrainedVariant& v : s.variants) {
        const auto& c = v.model->curve;
        out.push_back(
            curve(v, Text::tr("tokens"), Qt::SolidLine, pointsOf(c, [](auto& p) { return p.heldOutAccuracy; })));
        if (sequences)
            out.push_back(curve(v, Text::tr("sequences"), Qt::DashLine,
                                pointsOf(c, [](auto& p) { return p.heldOutSequenceAccuracy; })));
    }
    return out;
}

QString curvesLegend(const TrainingSnapshot& s)
{
    QStringList parts;
    for (const TrainedVariant& v : s.variants)
        parts << QStringLiteral("<span style=\"color:%1\">━━</span>&nbsp;%2")
                     .arg(variantColor(v.variant()).name(), variantName(v.variant()).toHtmlEscaped());
    if (parts.isEmpty()) return {};
    // Solid lines are the training loss and the held-out token accuracy: the dashed ones are named.
    const QString styles = s.targetTokens.empty() ? Text::tr("dashed: held-out loss")
                                                  : Text::tr("dashed: held-out loss, whole sequences right");
    // Lines wrap between the legend's items, never inside one ("whole sequences right" stays whole).
    QString unbroken = styles.toHtmlEscaped();
    unbroken.replace(QLatin1Char(' '), QStringLiteral("&nbsp;"));
    unbroken.replace(QStringLiteral(",&nbsp;"), QStringLiteral(", "));
    return parts.join(QStringLiteral(" &nbsp; ")) + QStringLiteral(" &nbsp;·&nbsp; ") + unbroken;
}

}  // namespace qkv::ui
