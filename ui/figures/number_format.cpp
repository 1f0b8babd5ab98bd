#include "ui/figures/number_format.hpp"

#include <cmath>
#include <cstdlib>

namespace qkv::ui {
namespace {

QString superscript(int value)
{
    static const QChar digits[] = {QChar(0x2070), QChar(0x00B9), QChar(0x00B2), QChar(0x00B3), QChar(0x2074),
                                   QChar(0x2075), QChar(0x2076), QChar(0x2077), QChar(0x2078), QChar(0x2079)};
    QString text;
    const QString plain = QString::number(std::abs(value));
    if (value < 0) text += QChar(0x207B);  // superscript minus
    for (const QChar c : plain) text += digits[c.digitValue()];
    return text;
}

// `value` with at most `significant` digits and no trailing zeros, in fixed notation.
QString fixed(double value, int significant)
{
    const double magnitude = std::abs(value);
    const int integerDigits = magnitude >= 1 ? static_cast<int>(std::floor(std::log10(magnitude))) + 1 : 1;
    int decimals = std::max(0, significant - integerDigits);
    if (magnitude > 0 && magnitude < 1)
        decimals = significant - 1 - static_cast<int>(std::floor(std::log10(magnitude)));
    QString text = QString::number(value, 'f', std::min(decimals, 12));
    if (text.contains(QLatin1Char('.'))) {
        while (text.endsWith(QLatin1Char('0'))) text.chop(1);
        if (text.endsWith(QLatin1Char('.'))) text.chop(1);
    }
    if (text == QLatin1String("-0")) text = QStringLiteral("0");
    return text;
}

QString withMinusSign(QString text)
{
    if (text.startsWith(QLatin1Char('-'))) text.replace(0, 1, QStringLiteral("−"));
    return text;
}

}  // namespace

QString powerOfTen(int exponent) { return QStringLiteral("10") + superscript(exponent); }

QString groupedInteger(long long value)
{
    QString digits = QString::number(std::llabs(value));
    for (qsizetype i = digits.size() - 3; i > 0; i -= 3) digits.insert(i, QLatin1Char(','));
    return value < 0 ? QStringLiteral("−") + digits : digits;
}

QString readableNumber(double value)
{
    if (std::isnan(value)) return QStringLiteral("NaN");
    if (std::isinf(value)) return value > 0 ? QStringLiteral("∞") : QStringLiteral("−∞");
    if (value == 0) return QStringLiteral("0");
    const double magnitude = std::abs(value);
    const QString sign = value < 0 ? QStringLiteral("−") : QString();
    // Four-digit whole numbers are written out: ticks like 2,048 are exact.
    if (magnitude >= 1e3 - 0.5 && magnitude < 1e4 - 0.5) return sign + groupedInteger(std::llround(magnitude));
    // Rounded to 3 significant digits first, so 9999.7 reads "10k", not "10,000".
    const int exponent = static_cast<int>(std::floor(std::log10(magnitude)));
    const double step = std::pow(10.0, exponent - 2);
    const double rounded = std::round(magnitude / step) * step;
    if (rounded >= 1e12 || rounded < 1e-3) {
        const int e = static_cast<int>(std::floor(std::log10(rounded)));
        const double mantissa = rounded / std::pow(10.0, e);
        if (std::abs(mantissa - 1.0) < 1e-9) return sign + powerOfTen(e);
        return sign + fixed(mantissa, 3) + QStringLiteral("×") + powerOfTen(e);
    }
    if (rounded >= 1e9) return sign + fixed(rounded / 1e9, 3) + QLatin1Char('G');
    if (rounded >= 1e6) return sign + fixed(rounded / 1e6, 3) + QLatin1Char('M');
    if (rounded >= 1e4) return sign + fixed(rounded / 1e3, 3) + QLatin1Char('k');
    return sign + fixed(rounded, 3);
}

QString preciseNumber(double value)
{
    if (std::isnan(value)) return QStringLiteral("NaN");
    if (std::isinf(value)) return value < 0 ? QStringLiteral("−∞") : QStringLiteral("+∞");
    if (value == 0.0) return QStringLiteral("0");
    const double magnitude = std::abs(value);
    int exponent = static_cast<int>(std::floor(std::log10(magnitude)));
    double mantissa = magnitude / std::pow(10.0, exponent);
    if (std::round(mantissa * 1000.0) >= 10000.0) {  // 9.9996 rounds to 10.00: the next power
        mantissa /= 10.0;
        ++exponent;
    }
    // Whole numbers of four or five digits in full ('g' would switch to an exponent there).
    if (exponent >= 3 && exponent < 5) return withMinusSign(QString::number(value, 'f', 0));
    if (exponent >= -3 && exponent < 3) return withMinusSign(QString::number(value, 'g', 4));
    const QString sign = value < 0 ? QStringLiteral("−") : QString();
    return sign + QString::number(mantissa, 'g', 4) + QStringLiteral("×") + powerOfTen(exponent);
}

double niceCeiling(double value)
{
    if (!(value > 0)) return 1.0;
    const double magnitude = std::pow(10.0, std::floor(std::log10(value)));
    for (double factor : {1.0, 2.0, 2.5, 5.0, 10.0})
        if (factor * magnitude >= value * (1 - 1e-9)) return factor * magnitude;
    return 10.0 * magnitude;
}

}  // namespace qkv::ui
