#include "ui/document/head_actions.hpp"

#include <QActionGroup>
#include <QCoreApplication>
#include <QMenu>

#include <algorithm>

#include "ui/document/document.hpp"

namespace qkv::ui {
namespace {
// The translation context of this file's visible text (lupdate reads Text::tr).
struct Text {
    Q_DECLARE_TR_FUNCTIONS(qkv::ui::HeadActions)
};
}  // namespace

QString presetMenuText(qkv::HeadPresetKind kind, qkv::Index rank)
{
    const std::string_view title = qkv::presetTitle(kind);
    QString text = QString::fromUtf8(title.data(), static_cast<qsizetype>(title.size()));
    if (!text.isEmpty()) text[0] = text[0].toUpper();
    if (kind == qkv::HeadPresetKind::LowRank) text += Text::tr(" (r = %1)").arg(rank);
    return text;
}

QString presetTip(qkv::HeadPresetKind kind)
{
    switch (kind) {
    case qkv::HeadPresetKind::Uniform: return Text::tr("W_i^Q = 0: every visible key gets the same weight");
    case qkv::HeadPresetKind::SameToken: return Text::tr("Attends to the keys holding the query's word");
    case qkv::HeadPresetKind::PreviousToken:
        return Text::tr("Attends to key t-1 (reads the sinusoidal positions; scales token embeddings by %1)")
            .arg(qkv::positionalPresetTokenScale);
    case qkv::HeadPresetKind::NextToken:
        return Text::tr("Attends to key t+1 (reads the sinusoidal positions; scales token embeddings by %1)")
            .arg(qkv::positionalPresetTokenScale);
    case qkv::HeadPresetKind::SamePosition:
        return Text::tr("Attends to the key at the query's index (scales token embeddings by %1)")
            .arg(qkv::positionalPresetTokenScale);
    case qkv::HeadPresetKind::SameMeaning:
        return Text::tr("Attends to the keys that mean the same, across languages (turns on meaning embeddings)");
    case qkv::HeadPresetKind::LowRank: return Text::tr("A random head whose W_i has rank r < d_k");
    case qkv::HeadPresetKind::Random: return Text::tr("The seed's random weights for this head");
    }
    return {};
}

qkv::Index menuLowRank(qkv::Index d_k) { return std::max<qkv::Index>(1, d_k / 8); }

qkv::HeadPreset menuPreset(qkv::Index head, qkv::HeadPresetKind kind, qkv::Index d_k)
{
    qkv::HeadPreset preset;
    preset.head = head;
    preset.kind = kind;
    // Only a low-rank head has an r: another kind keeps the default, as a session file (which
    // writes no rank for it) reads it back, so that a saved and reopened preset is the same.
    if (kind == qkv::HeadPresetKind::LowRank) preset.rank = menuLowRank(d_k);
    return preset;
}

void fillPresetMenu(QMenu* menu, Document* document, qkv::Index head)
{
    // Menus are refilled at every showing: clear() deletes their actions but not the group of
    // the last fill, which would pile up for the whole session.
    menu->clear();
    qDeleteAll(menu->findChildren<QActionGroup*>(Qt::FindDirectChildrenOnly));
    const qkv::Config& config = document->config();
    const qkv::HeadPreset* current = config.presetFor(head);
    auto* group = new QActionGroup(menu);
    const qkv::Index d_k = config.d_k();
    for (const qkv::HeadPresetKind kind : qkv::allPresetKinds()) {
        const qkv::HeadPreset preset = menuPreset(head, kind, d_k);
        QAction* action = menu->addAction(presetMenuText(kind, preset.rank));
        QObject::connect(action, &QAction::triggered, document, [document, preset] { document->applyPreset(preset); });
        action->setCheckable(true);
        action->setChecked(current && current->kind == kind);
        action->setStatusTip(presetTip(kind));
        action->setToolTip(presetTip(kind));
        action->setEnabled(kind != qkv::HeadPresetKind::LowRank || d_k > 1);
        group->addAction(action);
    }
}

void setHeadSwitchedOff(Document& document, qkv::Index head, bool off)
{
    std::vector<qkv::Index> heads = document.config().ablatedHeads;
    const bool isOff = std::find(heads.begin(), heads.end(), head) != heads.end();
    if (isOff == off) return;
    if (off)
        heads.push_back(head);
    else
        std::erase(heads, head);
    document.setAblatedHeads(heads);
}

QAction* addSwitchOffAction(QMenu* menu, Document* document, qkv::Index head)
{
    QAction* off = menu->addAction(Text::tr("Switch &Off Head %1").arg(head + 1));
    off->setCheckable(true);
    off->setChecked(document->config().isAblated(head));
    off->setStatusTip(Text::tr("Zero the head's block of Concat before W^O: how much does the output need it?"));
    QObject::connect(off, &QAction::toggled, document,
                     [document, head](bool on) { setHeadSwitchedOff(*document, head, on); });
    return off;
}

}  // namespace qkv::ui
