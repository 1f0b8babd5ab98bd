#pragma once
// A head's attention maps in the clean and the corrupted run side by side (the maps each run's
// layer holds), opened from a cell of the patching heads grid: where the head looks in either
// prompt, beside how much of the answer it carries.

#include <QDialog>

#include <memory>

#include "core/pretrained/model_run.hpp"
#include "ui/patching/patching_data.hpp"

namespace qkv::ui {

class FigureCanvas;

class HeadMapsDialog : public QDialog {
    Q_OBJECT
public:
    HeadMapsDialog(std::shared_ptr<const PatchingPrompts> prompts, qkv::ModelHead head, double recovered,
                   QWidget* parent = nullptr);
    FigureCanvas* cleanCanvas() const { return clean_; }
    FigureCanvas* corruptCanvas() const { return corrupt_; }

private:
    std::shared_ptr<const PatchingPrompts> prompts_;
    qkv::ModelHead head_;
    FigureCanvas* clean_;
    FigureCanvas* corrupt_;
};

}  // namespace qkv::ui
