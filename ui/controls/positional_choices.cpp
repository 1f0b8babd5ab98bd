#include "ui/controls/positional_choices.hpp"

#include <QComboBox>
#include <QCoreApplication>

#include "core/config/config.hpp"

namespace qkv::ui {

void addPositionalChoices(QComboBox* box)
{
    const auto tr = [](const char* text) { return QCoreApplication::translate("PositionalChoices", text); };
    box->addItem(tr("Sinusoidal (the paper)"), static_cast<int>(qkv::PositionalEncoding::Sinusoidal));
    box->addItem(tr("Rotary (rotate half, LLaMA)"), static_cast<int>(qkv::PositionalEncoding::Rotary));
    box->addItem(tr("Rotary interleaved (RoFormer, GPT-J)"), static_cast<int>(qkv::PositionalEncoding::RotaryInterleaved));
    box->addItem(tr("None"), static_cast<int>(qkv::PositionalEncoding::None));
    box->setToolTip(tr("Sinusoidal: PE(pos) is added to every token vector (section 3.5).\n"
                       "Rotary: q and k are turned by an angle that grows with the position, so the "
                       "score depends on the distance between query and key.\nNone: attention sees no order."));
}

}  // namespace qkv::ui
