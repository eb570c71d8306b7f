/* A full disk, said plainly: "no space left on DEVICE (PATH)", the device
 * read from the mount table. The I/O seam notes the last path a write
 * failed on for space; hearth_fail_errno and the store use it. */
#ifndef HEARTH_BACKEND_SPACE_H
#define HEARTH_BACKEND_SPACE_H

#include <stddef.h>

/* "no space left on DEVICE (PATH)": DEVICE is the mounted device holding
 * path (/dev/vda1), or its mount point when the source names no device
 * (tmpfs); just "no space left (PATH)" when neither is found. */
void space_message(const char *path, char *out, size_t size);

/* The path a write last failed on for space (the state folder until a
 * write names one); "" before any. */
void space_note_path(const char *path);
void space_note_fd(int fd);
const char *space_noted_path(void);

/* strerror, but ENOSPC reads as space_message of the noted path. The text
 * lives in a static buffer until the next call. */
const char *space_strerror(int error_number);

#endif
