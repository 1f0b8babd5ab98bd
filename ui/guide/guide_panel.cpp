#include "ui/guide/guide_panel.hpp"

#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QStackedWidget>
#include <QTextBrowser>
#include <QToolButton>
#include <QVBoxLayout>

#include "ui/guide/glossary.hpp"
#include "ui/guide/guide_steps.hpp"

namespace qkv::ui {
namespace {

QLabel* wrappedLabel(QWidget* parent)
{
    auto* label = new QLabel(parent);
    label->setWordWrap(true);
    label->setTextFormat(Qt::RichText);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    return label;
}

// The glossary's height: enough rows to read, never taller than the window leaves room for.
constexpr int kGlossaryHeight = 380;

}  // namespace

GuidePanel::GuidePanel(QWidget* parent)
    : QFrame(parent), counter_(new QLabel(this)), close_(new QToolButton(this)), pages_(new QStackedWidget(this))
{
    setObjectName(QStringLiteral("GuidePanel"));
    // A card above the views: the window's own colours, raised by a frame and a border in the
    // highlight's orange so it reads as the guide's.
    setFrameShape(QFrame::StyledPanel);
    setAutoFillBackground(true);
    setStyleSheet(
        QStringLiteral("#GuidePanel { background-color: palette(window); border: 2px solid rgb(245, 124, 0); "
                       "border-radius: 6px; }"));
    setFixedWidth(kWidth);

    close_->setText(QStringLiteral("×"));
    close_->setAutoRaise(true);
    close_->setToolTip(tr("Close the guide"));
    close_->setAccessibleName(tr("Close the guide"));
    auto* header = new QHBoxLayout();
    header->addWidget(counter_, 1);
    header->addWidget(close_);

    pages_->addWidget(makeStepPage());
    pages_->addWidget(makeGlossaryPage());

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(10, 6, 10, 10);
    layout->addLayout(header);
    layout->addWidget(pages_, 1);
    layout->addLayout(makeButtons());

    connect(close_, &QToolButton::clicked, this, &GuidePanel::closeRequested);
}

QWidget* GuidePanel::makeStepPage()
{
    auto* page = new QWidget(this);
    title_ = wrappedLabel(page);
    title_->setTextFormat(Qt::PlainText);
    QFont titleFont = title_->font();
    titleFont.setBold(true);
    titleFont.setPointSizeF(titleFont.pointSizeF() * 1.15);
    title_->setFont(titleFont);
    text_ = wrappedLabel(page);
    // The equation stands apart, a little larger, as in a textbook.
    equation_ = wrappedLabel(page);
    equation_->setFrameShape(QFrame::StyledPanel);
    equation_->setMargin(6);
    equation_->setAlignment(Qt::AlignCenter);
    QFont equationFont = equation_->font();
    equationFont.setFamily(QStringLiteral("serif"));
    equationFont.setPointSizeF(equationFont.pointSizeF() * 1.1);
    equation_->setFont(equationFont);
    where_ = wrappedLabel(page);
    where_->setForegroundRole(QPalette::PlaceholderText);

    auto* layout = new QVBoxLayout(page);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(title_);
    layout->addWidget(text_);
    layout->addWidget(equation_);
    layout->addWidget(where_);
    layout->addStretch(1);
    return page;
}

QWidget* GuidePanel::makeGlossaryPage()
{
    glossaryBrowser_ = new QTextBrowser(this);
    glossaryBrowser_->setHtml(glossaryHtml());
    glossaryBrowser_->setFrameShape(QFrame::NoFrame);
    glossaryBrowser_->setMinimumHeight(120);
    return glossaryBrowser_;
}

QLayout* GuidePanel::makeButtons()
{
    back_ = new QPushButton(tr("&Back"), this);
    next_ = new QPushButton(tr("&Next"), this);
    glossary_ = new QPushButton(tr("G&lossary"), this);
    glossary_->setCheckable(true);
    glossary_->setToolTip(tr("The symbols of the paper, as the app uses them"));
    next_->setDefault(true);
    auto* buttons = new QHBoxLayout();
    buttons->addWidget(glossary_);
    buttons->addStretch(1);
    buttons->addWidget(back_);
    buttons->addWidget(next_);
    connect(back_, &QPushButton::clicked, this, &GuidePanel::backRequested);
    connect(next_, &QPushButton::clicked, this, &GuidePanel::nextRequested);
    connect(glossary_, &QPushButton::toggled, this, [this](bool shown) {
        showGlossary(shown);
        emit glossaryToggled(shown);
    });
    return buttons;
}

void GuidePanel::showStep(const GuideStep& step, int index, int count, const QString& setup)
{
    stepCounter_ = tr("Student guide · step %1 of %2").arg(index + 1).arg(count);
    counter_->setText(stepCounter_);
    title_->setText(step.title);
    text_->setText(step.text);
    equation_->setText(step.equation);
    where_->setText(tr("Look at: <b>%1</b> (outlined).<br>Set up: %2").arg(step.targetName.toHtmlEscaped(), setup));
    back_->setEnabled(index > 0);
    next_->setText(index + 1 < count ? tr("&Next") : tr("Fi&nish"));
    showGlossary(false);
}

void GuidePanel::showGlossary(bool show)
{
    pages_->setCurrentIndex(show ? 1 : 0);
    if (glossary_->isChecked() != show) glossary_->setChecked(show);
    counter_->setText(show ? tr("Student guide · glossary") : stepCounter_);
}

bool GuidePanel::isGlossaryShown() const { return pages_->currentIndex() == 1; }

int GuidePanel::preferredHeight() const
{
    if (isGlossaryShown()) return kGlossaryHeight;
    // The frame's margins included (QWidget's, not the layout's, heightForWidth).
    return hasHeightForWidth() ? heightForWidth(kWidth) : sizeHint().height();
}

}  // namespace qkv::ui
