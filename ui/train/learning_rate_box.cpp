#include "ui/train/learning_rate_box.hpp"

#include <QLocale>

#include <cmath>

#include "core/training/training_limits.hpp"

namespace qkv::ui {

LearningRateBox::LearningRateBox(QWidget* parent) : QDoubleSpinBox(parent)
{
    // QDoubleSpinBox rounds to its decimals: enough of them for the smallest rate (1e-6) to keep
    // three digits.
    setDecimals(9);
    const qkv::TrainingLimit& limit = qkv::trainingLimit(qkv::TrainingField::LearningRate);
    setRange(limit.minimum, limit.maximum);
    setValue(3e-3);
    setAccessibleName(tr("Learning rate"));
}

QString LearningRateBox::textFromValue(double value) const { return locale().toString(value, 'g', 3); }

double LearningRateBox::valueFromText(const QString& text) const
{
    bool ok = false;
    const double value = locale().toDouble(text.trimmed(), &ok);
    return ok ? value : this->value();
}

QValidator::State LearningRateBox::validate(QString& text, int& position) const
{
    Q_UNUSED(position);
    const QString trimmed = text.trimmed();
    if (trimmed.isEmpty()) return QValidator::Intermediate;
    bool ok = false;
    const double value = locale().toDouble(trimmed, &ok);
    if (ok) return value >= minimum() && value <= maximum() ? QValidator::Acceptable : QValidator::Intermediate;
    // A number being typed: "3e-", "0.", "1e".
    for (const QChar c : trimmed)
        if (!c.isDigit() && c != locale().decimalPoint().front() && c != QLatin1Char('e') && c != QLatin1Char('E') &&
            c != QLatin1Char('-') && c != QLatin1Char('+'))
            return QValidator::Invalid;
    return QValidator::Intermediate;
}

void LearningRateBox::stepBy(int steps) { setValue(value() * std::pow(2.0, steps)); }

}  // namespace qkv::ui
