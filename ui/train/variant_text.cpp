#include "ui/train/variant_text.hpp"

#include <QCoreApplication>

namespace qkv::ui {
namespace {
// The Train tab's translation context (lupdate reads Text::tr).
struct Text {
    Q_DECLARE_TR_FUNCTIONS(qkv::ui::TrainTab)
};
}  // namespace

QString variantName(qkv::ScoreForm variant)
{
    return variant == qkv::ScoreForm::Full ? Text::tr("full W_i") : Text::tr("factored");
}

QString variantTitle(qkv::ScoreForm variant)
{
    return variant == qkv::ScoreForm::Full ? Text::tr("Full W_i") : Text::tr("Factored W_i^Q, W_i^K");
}

QColor variantColor(qkv::ScoreForm variant)
{
    return variant == qkv::ScoreForm::Full ? QColor(0xb2, 0x18, 0x2b) : QColor(0x21, 0x66, 0xac);
}

}  // namespace qkv::ui
