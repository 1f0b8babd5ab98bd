#include "ui/train/training_curves.hpp"

#include <QCoreApplication>
#include <QStringList>

#include <algorithm>
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
    Curve out;
    out.name = QStringLiteral("%1 · %2").arg(variantName(v.variant()), what);
    out.color = variantColor(v.variant());
    out.style = style;
    out.points = std::move(points);
    return out;
}

}  // namespace

std::vector<Curve> lossCurves(const TrainingSnapshot& s)
{
    std::vector<Curve> out;
    for (const TrainedVariant& v : s.variants) {
        const auto& c = v.model->curve;
        // Step 0 is the untrained model's evaluation: no batch was trained on there. The training
        // loss of every step is a busy line: drawn lighter, under the held-out one.
        Curve training = curve(v, Text::tr("training"), Qt::SolidLine, pointsOf(c, [](auto& p) {
                                   return p.step > 0 ? p.loss : std::numeric_limits<double>::quiet_NaN();
                               }));
        training.color.setAlpha(110);
        out.push_back(std::move(training));
    }
    // The held-out losses after every training line, so that no training line covers them, with a
    // dot at each evaluation: where the two losses agree the dots still show.
    for (const TrainedVariant& v : s.variants) {
        Curve heldOut =
            curve(v, Text::tr("held-out"), Qt::DashLine, pointsOf(v.model->curve, [](auto& p) { return p.heldOutLoss; }));
        heldOut.dots = true;
        out.push_back(std::move(heldOut));
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
    // Solid lines are the training loss and the held-out token accuracy. A dashed line is named
    // only when a chart draws one (a run not yet evaluated has no held-out loss to draw).
    const auto drawsDashed = [](const std::vector<Curve>& curves) {
        return std::any_of(curves.begin(), curves.end(),
                           [](const Curve& c) { return c.style == Qt::DashLine && !c.points.empty(); });
    };
    QStringList dashed;
    if (drawsDashed(lossCurves(s))) dashed << Text::tr("held-out loss (a dot per evaluation)");
    if (drawsDashed(accuracyCurves(s))) dashed << Text::tr("whole sequences right");
    QString legend = parts.join(QStringLiteral(" &nbsp; "));
    if (dashed.isEmpty()) return legend;
    // Lines wrap between the legend's items, never inside one ("whole sequences right" stays whole).
    QStringList unbroken;
    for (const QString& item : dashed)
        unbroken << item.toHtmlEscaped()
                        .replace(QLatin1Char(' '), QStringLiteral("&nbsp;"))
                        .replace(QLatin1Char('-'), QChar(0x2011));  // a hyphen that does not break
    return legend + QStringLiteral(" &nbsp;·&nbsp; ") + Text::tr("dashed:") + QStringLiteral("&nbsp;") +
           unbroken.join(QStringLiteral(", "));
}

}  // namespace qkv::ui
