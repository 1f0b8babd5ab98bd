#include "ui/controls/scale_slider.hpp"

#include <QHBoxLayout>
#include <QLabel>
#include <QSlider>

#include <cmath>

namespace qkv::ui {
namespace {
constexpr int kRange = 100;  // position p means a scale of 10^(p / 100)
}

ScaleSlider::ScaleSlider(const QString& name, QWidget* parent)
    : QWidget(parent), name_(new QLabel(name, this)), slider_(new QSlider(Qt::Horizontal, this)),
      value_(new QLabel(this))
{
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    slider_->setRange(-kRange, kRange);
    slider_->setPageStep(10);
    slider_->setTickPosition(QSlider::NoTicks);
    slider_->setAccessibleName(tr("Scale of %1").arg(name));
    slider_->setToolTip(tr("Multiplies %1 by this factor: above 1 sharpens, below 1 flattens. "
                           "Double-click the value to reset.").arg(name));
    name_->setBuddy(slider_);
    name_->setMinimumWidth(name_->fontMetrics().horizontalAdvance(QStringLiteral("W^O ")) + 4);
    value_->setMinimumWidth(value_->fontMetrics().horizontalAdvance(QStringLiteral("×10.00")) + 4);
    value_->setAlignment(Qt::AlignRight | Qt::AlignVCenter);
    layout->addWidget(name_);
    layout->addWidget(slider_, 1);
    layout->addWidget(value_);
    connect(slider_, &QSlider::valueChanged, this, [this] {
        updateLabel();
        emit valueChanged(value());
    });
    updateLabel();
}

int ScaleSlider::toPosition(float scale)
{
    if (!(scale > 0)) return 0;
    return static_cast<int>(std::lround(std::log10(scale) * kRange));
}

float ScaleSlider::fromPosition(int position)
{
    // Two decimals, so the value shown is the value used.
    const double scale = std::pow(10.0, position / static_cast<double>(kRange));
    return static_cast<float>(std::round(scale * 100.0) / 100.0);
}

QString ScaleSlider::name() const { return name_->text(); }

float ScaleSlider::value() const { return fromPosition(slider_->value()); }

void ScaleSlider::setValue(float scale)
{
    const QSignalBlocker blocker(slider_);
    slider_->setValue(toPosition(scale));
    value_->setText(QStringLiteral("×%1").arg(static_cast<double>(scale), 0, 'f', 2));
}

void ScaleSlider::updateLabel()
{
    value_->setText(QStringLiteral("×%1").arg(static_cast<double>(value()), 0, 'f', 2));
}

}  // namespace qkv::ui
