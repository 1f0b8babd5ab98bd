#include "ui/views/head_box.hpp"

#include <QSignalBlocker>

#include "core/pipeline/compute.hpp"
#include "ui/document/head_selection.hpp"
#include "ui/figures/figure_text.hpp"

namespace qkv::ui {

HeadBox::HeadBox(HeadSelection* selection, QWidget* parent) : QComboBox(parent), selection_(selection)
{
    setSizeAdjustPolicy(QComboBox::AdjustToContents);
    connect(this, &QComboBox::activated, selection_, &HeadSelection::setHead);
    connect(selection_, &HeadSelection::headChanged, this, &HeadBox::showSelectedHead);
}

void HeadBox::showHeadsOf(const qkv::Result* result)
{
    const QSignalBlocker blocker(this);
    const int count = result ? static_cast<int>(result->attention.headCount()) : 0;
    while (this->count() > count) removeItem(this->count() - 1);
    for (int i = 0; i < count; ++i) {
        const QString name = headName(i);
        const QString text = result->attention.isAblated(i) ? tr("%1 (switched off)").arg(name) : name;
        if (i < this->count())
            setItemText(i, text);
        else
            addItem(text);
    }
    showSelectedHead();
}

void HeadBox::showSelectedHead()
{
    const QSignalBlocker blocker(this);
    if (selection_->head() < count()) setCurrentIndex(selection_->head());
}

}  // namespace qkv::ui
