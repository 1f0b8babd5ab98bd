#pragma once
// A sentence editor: a multi-line text field, its tokens as chips, and its validation message.

#include <QStringList>
#include <QWidget>

#include <memory>

namespace qkv {
class ModelInput;
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
    // The chips show this model's subword tokens ("[CLS]", "play", "##ing"); null: words.
    void setModelInput(std::shared_ptr<const qkv::ModelInput> input);
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
    std::shared_ptr<const qkv::ModelInput> modelInput_;
};

}  // namespace qkv::ui
