#pragma once
// What the Head menu, the heads grid and the weights editor offer for one head, defined once:
// the preset list (words, tips, the low-rank r) and switching a head off. Each action is one undo step through the Document.

#include <QString>

#include "core/weights/head_preset.hpp"

class QAction;
class QMenu;

namespace qkv::ui {

class Document;

// "Same meaning", "Low rank (r = 2)".
QString presetMenuText(qkv::HeadPresetKind kind, qkv::Index rank);
// One sentence on what the preset does (and which settings it changes).
QString presetTip(qkv::HeadPresetKind kind);
// The r a low-rank preset gets from the menus: d_k / 8, at least 1.
qkv::Index menuLowRank(qkv::Index d_k);
// `kind` for `head` (0-based) as the menus apply it.
qkv::HeadPreset menuPreset(qkv::Index head, qkv::HeadPresetKind kind, qkv::Index d_k);

// Fills `menu` (emptied first) with one checkable action per preset for `head` of the
// document's config (the current one checked); each applies its preset as one undo step.
void fillPresetMenu(QMenu* menu, Document* document, qkv::Index head);

// Switches `head` (0-based) off or on: the document's ablated heads with it added or removed.
void setHeadSwitchedOff(Document& document, qkv::Index head, bool off);
// A checkable "Switch Off Head i" action in `menu`, checked while the head is off.
QAction* addSwitchOffAction(QMenu* menu, Document* document, qkv::Index head);

}  // namespace qkv::ui
