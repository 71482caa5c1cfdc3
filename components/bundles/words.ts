import type { ApplicationState } from "@/server/bundles/contract";

/** What each state of a bundle application means to the person on site. */
export const STATE_WORDS: Record<ApplicationState, string> = {
  applying: "Creating the image sets",
  preloading: "Pre-loading images",
  upgrading: "Upgrading",
  upgraded: "Upgraded",
  unpinning: "Unpinning the images",
  unpinned: "Images unpinned",
};
