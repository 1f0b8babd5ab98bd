#include "ui/matrices/figure_text.hpp"

#include "ui/figures/figure_text.hpp"

#include <QCoreApplication>

#include <cmath>

namespace qkv::ui::figuretext {
namespace {

QString tr(const char* text) { return QCoreApplication::translate("FigureText", text); }

}  // namespace

// The mode's words have one home (ui/figures/figure_text.hpp); these keep the views' spelling.
QString modeTitle(qkv::AttentionMode mode) { return qkv::ui::modeTitle(mode); }

QString querySentence(qkv::AttentionMode mode) { return qkv::ui::querySentence(mode); }

QString keySentence(qkv::AttentionMode mode) { return qkv::ui::keySentence(mode); }

QString queryAxisTitle(const qkv::Config& config) { return qkv::ui::queryAxisTitle(config.mode); }

QString keyAxisTitle(const qkv::Config& config) { return qkv::ui::keyAxisTitle(config.mode); }

QString headName(qkv::Index head) { return tr("Head %1").arg(head + 1); }

QString label(const std::vector<std::string>& labels, qkv::Index position)
{
    if (position < 0 || position >= static_cast<qkv::Index>(labels.size())) return {};
    return QString::fromStdString(labels[static_cast<std::size_t>(position)]);
}

QString token(const std::vector<std::string>& labels, qkv::Index position)
{
    return tr("«%1» (position %2)").arg(label(labels, position)).arg(position);
}

QString shape(qkv::Index rows, qkv::Index columns) { return QStringLiteral("%1 × %2").arg(rows).arg(columns); }

QString number(double value)
{
    if (std::isnan(value)) return QStringLiteral("NaN");
    if (std::isinf(value)) return value < 0 ? QStringLiteral("−∞") : QStringLiteral("+∞");
    if (value == 0.0) return QStringLiteral("0");
    const double magnitude = std::abs(value);
    QString text =
        magnitude >= 1e-3 && magnitude < 1e5 ? QString::number(value, 'g', 4) : QString::number(value, 'e', 2);
    if (text.startsWith(QLatin1Char('-'))) text.replace(0, 1, QStringLiteral("−"));
    return text;
}

double niceCeiling(double value)
{
    if (!(value > 0)) return 1.0;
    const double magnitude = std::pow(10.0, std::floor(std::log10(value)));
    for (double factor : {1.0, 2.0, 2.5, 5.0, 10.0})
        if (factor * magnitude >= value * (1 - 1e-9)) return factor * magnitude;
    return 10.0 * magnitude;
}

QString shapesLine(const qkv::Result& result)
{
    const qkv::AttentionResult& a = result.attention;
    QString line = tr("n_q = %1, n_k = %2, d_model = %3, h = %4, d_k = %5")
                       .arg(a.queryCount())
                       .arg(a.keyCount())
                       .arg(result.queryInput.cols())
                       .arg(a.headCount())
                       .arg(a.d_k());
    if (a.grouping.keyValueHeadCount != a.grouping.headCount)
        line += tr(", g = %1 key/value heads").arg(a.grouping.keyValueHeadCount);
    return line;
}

}  // namespace qkv::ui::figuretext
