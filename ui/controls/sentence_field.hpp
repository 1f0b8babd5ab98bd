#pragma once
// A sentence editor: a multi-line text field, its tokens as chips, and its validation message.

#include <QStringList>
#include <QWidget>

#include <memory>

namespace qkv {
struct CutSentence;
}

class QPlainTextEdit;
class QLabel;

namespace qkv::ui {

class FieldMessage;
class TokenChips;

class SentenceField : public QWidget {
    Q_OBJECT
public:
    explicit SentenceField(const QString& title, QWidget* parent = nullptr);

    QString text() const;
    // Replaces the text unless it is already equal (keeps the cursor while typing).
    void setText(const QString& text);
    void setMessage(const QString& message);
    // Dims the field with a note when the current mode does not use this sentence.
    void setUsed(bool used, const QString& note);
    // The chips show the sentence as the document cut it: the model's subword tokens ("[CLS]",
    // "play", "##ing") when its tokenizer cut them, else the words. The field never cuts the
    // text itself; a cut of other text than the field's (an edit in flight) shows no chips.
    void showCut(std::shared_ptr<const qkv::CutSentence> cut);
    // With meaning embeddings, words outside the lexicon are marked on the chips and named once
    // under them: their alignment with a translation is chance.
    void setMarksOutsideLexicon(bool marks);
    QString lexiconNote() const;
    QPlainTextEdit* editor() const { return editor_; }
    TokenChips* chips() const { return chips_; }
    FieldMessage* message() const { return message_; }

    QSize sizeHint() const override;

signals:
    void textEdited(const QString& text);

private:
    void updateTokens();
    void showOutsideLexicon(const QStringList& words);
    QLabel* title_;
    QLabel* note_;
    QPlainTextEdit* editor_;
    TokenChips* chips_;
    QLabel* lexiconNote_;
    FieldMessage* message_;
    bool marksOutsideLexicon_ = false;
    std::shared_ptr<const qkv::CutSentence> cut_;
};

}  // namespace qkv::ui
