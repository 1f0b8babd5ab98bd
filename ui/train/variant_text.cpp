#include "ui/train/variant_text.hpp"

#include <QCoreApplication>

namespace qkv::ui {
namespace {
QString tr(const char* text) { return QCoreApplication::translate("qkv::ui::TrainTab", text); }
}  // namespace

QString variantName(qkv::ScoreForm variant)
{
    return variant == qkv::ScoreForm::Full ? tr("full W_i") : tr("factored");
}

QString variantTitle(qkv::ScoreForm variant)
{
    return variant == qkv::ScoreForm::Full ? tr("Full W_i") : tr("Factored W_i^Q, W_i^K");
}

QColor variantColor(qkv::ScoreForm variant)
{
    return variant == qkv::ScoreForm::Full ? QColor(0xb2, 0x18, 0x2b) : QColor(0x21, 0x66, 0xac);
}

}  // namespace qkv::ui
