# lavapipe.sh — the Vulkan setup of kiln-view's tests: sourced, it finds
# lavapipe (Mesa's software driver) and the Khronos validation layer,
# installing them with apt-get when missing and root, and makes lavapipe the
# only driver the loader uses.
#
#   lavapipe_setup SCRATCH   0 when both are there (VK_ICD_FILENAMES and
#                            VK_DRIVER_FILES exported, and ASAN_OPTIONS
#                            without leak checks); else 1 with the reason in
#                            $LAVAPIPE_MISSING (the caller prints "skipped:")

lavapipe_icd() { ls /usr/share/vulkan/icd.d/lvp_icd.*.json 2>/dev/null | head -n 1; }
lavapipe_layer() { ls /usr/share/vulkan/explicit_layer.d/VkLayer_khronos_validation.json 2>/dev/null; }

lavapipe_setup() {
    if { [ -z "$(lavapipe_icd)" ] || [ -z "$(lavapipe_layer)" ]; } && [ "$EUID" -eq 0 ] &&
        command -v apt-get >/dev/null; then
        DEBIAN_FRONTEND=noninteractive timeout 300 apt-get install -y -q mesa-vulkan-drivers \
            vulkan-validationlayers >"$1/apt-vulkan.log" 2>&1 || true
    fi
    if [ -z "$(lavapipe_icd)" ] || [ -z "$(lavapipe_layer)" ]; then
        LAVAPIPE_MISSING="lavapipe (mesa-vulkan-drivers) or vulkan-validationlayers not installed"
        return 1
    fi
    # Only lavapipe, whatever else the machine has; both variables for old and new loaders.
    export VK_ICD_FILENAMES VK_DRIVER_FILES
    VK_ICD_FILENAMES=$(lavapipe_icd)
    VK_DRIVER_FILES=$VK_ICD_FILENAMES
    # Mesa's LLVM JIT keeps allocations until exit, in modules unloaded before
    # LeakSanitizer looks (unsymbolisable frames); other ASan checks stay on.
    export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
    return 0
}
