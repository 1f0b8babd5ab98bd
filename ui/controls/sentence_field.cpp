#include "ui/controls/sentence_field.hpp"

#include <QFontMetrics>
#include <QLabel>
#include <QPlainTextEdit>
#include <QSet>
#include <QVBoxLayout>

#include "core/embedding/meaning_embeddings.hpp"
#include "core/pipeline/cut_sentence.hpp"
#include "ui/controls/field_message.hpp"
#include "ui/controls/note_label.hpp"
#include "ui/controls/token_chips.hpp"

namespace qkv::ui {

SentenceField::SentenceField(const QString& title, QWidget* parent)
    : QWidget(parent), title_(new QLabel(title, this)), note_(new QLabel(this)), editor_(new QPlainTextEdit(this)),
      chips_(new TokenChips(this)), lexiconNote_(noteLabel(this)), message_(new FieldMessage(this))
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(3);
    auto* header = new QHBoxLayout;
    QFont bold = title_->font();
    bold.setBold(true);
    title_->setFont(bold);
    title_->setBuddy(editor_);
    note_->setForegroundRole(QPalette::PlaceholderText);
    note_->setTextFormat(Qt::PlainText);
    header->addWidget(title_);
    header->addStretch();
    header->addWidget(note_);
    layout->addLayout(header);
    layout->addWidget(editor_);
    layout->addWidget(chips_);
    layout->addWidget(lexiconNote_);
    layout->addWidget(message_);

    editor_->setTabChangesFocus(true);
    chips_->setAccessibleName(tr("Tokens of %1").arg(QString(title).remove(QLatin1Char('&')).toLower()));
    chips_->setAccessibleDescription(tr("Left and Right choose a token as a query or key, Shift extends, Home and End "
                                        "go to the first and last"));
    editor_->setAccessibleName(title);
    const int lineHeight = QFontMetrics(editor_->font()).lineSpacing();
    editor_->setFixedHeight(lineHeight * 3 + 12);
    connect(editor_, &QPlainTextEdit::textChanged, this, [this] { emit textEdited(text()); });
}

QString SentenceField::text() const { return editor_->toPlainText(); }

void SentenceField::setText(const QString& text)
{
    if (text == editor_->toPlainText()) return;
    const QSignalBlocker blocker(editor_);
    editor_->setPlainText(text);
    updateTokens();
}

void SentenceField::setMessage(const QString& message) { message_->setMessage(message); }

void SentenceField::setUsed(bool used, const QString& note)
{
    note_->setText(used ? QString() : note);
    editor_->setEnabled(true);  // still editable: the sentence is kept for other modes
    chips_->setEnabled(used);
    QPalette p = editor_->palette();
    p.setColor(QPalette::Text, palette().color(used ? QPalette::Active : QPalette::Disabled, QPalette::Text));
    editor_->setPalette(p);
}

QSize SentenceField::sizeHint() const { return {260, QWidget::sizeHint().height()}; }

void SentenceField::showCut(std::shared_ptr<const qkv::CutSentence> cut)
{
    if (cut == cut_) return;
    cut_ = std::move(cut);
    updateTokens();
}

void SentenceField::setMarksOutsideLexicon(bool marks)
{
    if (marks == marksOutsideLexicon_) return;
    marksOutsideLexicon_ = marks;
    updateTokens();
}

QString SentenceField::lexiconNote() const { return lexiconNote_->isHidden() ? QString() : lexiconNote_->text(); }

void SentenceField::updateTokens()
{
    QStringList tokens;
    if (!cut_ || QString::fromStdString(cut_->text) != text()) {
        chips_->setTokens(tokens);
        showOutsideLexicon({});
        return;
    }
    // The model's tokens when its tokenizer cut the text (a refusal, e.g. too large a text, is
    // reported under the field by validation; the chips then show words).
    if (const qkv::SubwordTokenization* subwords = cut_->modelTokens()) {
        for (const qkv::SubwordToken& token : subwords->tokens) tokens << QString::fromStdString(token.display);
        chips_->setTokens(tokens);
        showOutsideLexicon({});
        return;
    }
    const std::vector<qkv::Token>& words = cut_->words;
    for (const qkv::Token& token : words) tokens << QString::fromStdString(token.text);
    const std::vector<bool> outside = marksOutsideLexicon_ ? qkv::outsideLexicon(words) : std::vector<bool>{};
    chips_->setTokens(tokens, outside);
    QStringList named;  // each word once, in sentence order
    QSet<QString> seen;
    for (std::size_t i = 0; i < outside.size(); ++i) {
        const QString& word = tokens[static_cast<int>(i)];
        if (!outside[i] || seen.contains(word)) continue;
        seen.insert(word);
        named << word;
    }
    showOutsideLexicon(named);
}

void SentenceField::showOutsideLexicon(const QStringList& words)
{
    setNote(lexiconNote_, words.isEmpty() ? QString()
                                          : tr("%1: not in the lexicon, embedded by spelling (dashed chips), so "
                                               "their attention to a translation is chance")
                                                .arg(words.join(QStringLiteral(", "))));
}

}  // namespace qkv::ui
