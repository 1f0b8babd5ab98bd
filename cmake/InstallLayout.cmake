# Where the installed app's files go, and its one identity on the desktop.
#
# QKV_APP_ID names the launcher entry, the icon, the AppStream metainfo and the MIME definition
# (reverse-DNS and lower case, as the freedesktop and AppStream specifications ask), and the app tells the desktop it is that
# entry (QGuiApplication::setDesktopFileName).
set(QKV_APP_ID io.github.qkvstudio.qkvstudio)
# Saved sessions (*.qkv.json): the launcher entry opens them, packaging/session-mime.xml.in.
set(QKV_SESSION_MIME_TYPE application/x-qkv-session)
# The project's address: the metainfo's homepage and its screenshots (docs/screenshots there).
set(QKV_PROJECT_URL "https://github.com/qkvstudio/qkv-studio" CACHE STRING "The project's public address")

# The app's data files (the example sessions, the lexicon and the demo model).
#
# Installed: <prefix>/${CMAKE_INSTALL_DATADIR}/qkv-studio, found by the executable through the
# relative path from its folder (<prefix>/${CMAKE_INSTALL_BINDIR}), so the installed tree can be
# moved as a whole (a DESTDIR, /opt, a package). In the build tree the same relative path from
# the executable's folder (<build>/app) gets a copy, refreshed whenever a source file changes
# (configure_file), so the app run from the build folder finds them the same way.
include(GNUInstallDirs)

set(QKV_DATA_INSTALL_DIR ${CMAKE_INSTALL_DATADIR}/qkv-studio)
file(RELATIVE_PATH QKV_DATA_FROM_EXECUTABLE
  /prefix/${CMAKE_INSTALL_BINDIR} /prefix/${QKV_DATA_INSTALL_DIR})
get_filename_component(QKV_BUILD_DATA_DIR ${PROJECT_BINARY_DIR}/app/${QKV_DATA_FROM_EXECUTABLE} ABSOLUTE)

set(QKV_EXAMPLE_FILES
  ${PROJECT_SOURCE_DIR}/resources/examples/translation.qkv.json
  ${PROJECT_SOURCE_DIR}/resources/examples/decoder.qkv.json
  ${PROJECT_SOURCE_DIR}/resources/examples/paper-random.qkv.json
  ${PROJECT_SOURCE_DIR}/resources/examples/low-rank.qkv.json
  ${PROJECT_SOURCE_DIR}/resources/examples/trained-reverse.qkv.json)
set(QKV_LEXICON_FILE ${PROJECT_SOURCE_DIR}/resources/lexicon/lexicon.txt)
# The demo model (docs/demo-model: a two-layer GPT-2 that learned induction heads, 0.4 MB), which
# File > Examples opens: the checkpoint and its tokenizer, not the script or its reference.
set(QKV_DEMO_MODEL_FILES
  ${PROJECT_SOURCE_DIR}/docs/demo-model/config.json
  ${PROJECT_SOURCE_DIR}/docs/demo-model/model.safetensors
  ${PROJECT_SOURCE_DIR}/docs/demo-model/vocab.json
  ${PROJECT_SOURCE_DIR}/docs/demo-model/merges.txt)

foreach(example IN LISTS QKV_EXAMPLE_FILES)
  get_filename_component(name ${example} NAME)
  configure_file(${example} ${QKV_BUILD_DATA_DIR}/examples/${name} COPYONLY)
endforeach()
configure_file(${QKV_LEXICON_FILE} ${QKV_BUILD_DATA_DIR}/lexicon/lexicon.txt COPYONLY)
foreach(file IN LISTS QKV_DEMO_MODEL_FILES)
  get_filename_component(name ${file} NAME)
  configure_file(${file} ${QKV_BUILD_DATA_DIR}/demo-model/${name} COPYONLY)
endforeach()
