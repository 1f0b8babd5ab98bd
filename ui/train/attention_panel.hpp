#pragma once
// The Train tab's live attention: for the chosen attention layer (a picker lists the model's
// layers by name), every head of every variant on the shown held-out example, side by side for
// "both", refreshed with each snapshot; under a full model's heads, the spectrum of its W_i.

#include <QWidget>

#include <memory>
#include <vector>

#include "ui/train/learned_attention.hpp"
#include "ui/train/training_snapshot.hpp"

class QComboBox;
class QLabel;

namespace qkv::ui {

class ChartView;
class FigureCanvas;

class AttentionPanel : public QWidget {
    Q_OBJECT
public:
    explicit AttentionPanel(QWidget* parent = nullptr);

    // Shows `snapshot` (null: nothing yet). The layer chosen stays while the layers are the same.
    void setSnapshot(std::shared_ptr<const TrainingSnapshot> snapshot);
    // The chosen attention layer (attentionLayers order), or -1 with no snapshot.
    int layer() const;
    void setLayer(int layer);
    QComboBox* layerBox() const { return layerBox_; }

    // What is drawn (tests): per shown variant, its pictures' data.
    const std::vector<LearnedAttention>& shown() const { return shown_; }
    // The spectrum chart under variant `index`'s heads (null when the variant has none).
    ChartView* spectrum(std::size_t index) const;
    FigureCanvas* canvas(std::size_t index) const;

signals:
    // The user (or setLayer) chose another layer.
    void layerChanged(int layer);

private:
    void rebuildColumns();
    void refresh();
    void fillLayers();
    // The example's words and what the rows and columns are, once for every picture.
    void describeExample();

    std::shared_ptr<const TrainingSnapshot> snapshot_;
    QLabel* layerLabel_;
    QComboBox* layerBox_;
    QLabel* example_;
    QWidget* columnsHost_;
    QLabel* placeholder_;
    struct Column {
        FigureCanvas* canvas = nullptr;
        ChartView* spectrum = nullptr;
    };
    std::vector<Column> columns_;
    std::vector<qkv::ScoreForm> columnVariants_;
    std::vector<LearnedAttention> shown_;
};

}  // namespace qkv::ui
