/* version.h - the program's version, printed by `gpumemsim version` and written
 * into every report and into traces by the capture tool. */
#ifndef GMS_VERSION_H
#define GMS_VERSION_H
#define GMS_VERSION "0.1.0"
#endif
