/**
 * For every modal dialog's `onFocusOutside`. A modal traps focus, so focus lands outside it only
 * when code moves it there; the common case is one dialog handing over to the next (the account
 * edit's 'Send credentials' opens the send dialog while the edit dialog, unmounting, returns focus
 * to the row's menu button). Ark treats that as an interaction outside and closes the new dialog,
 * or not, depending on which of the two effects runs first. It is not the user leaving: the dialog
 * stays open (a pointer-down outside and Escape still close it).
 */
export const ignoreFocusOutside = (event: { preventDefault: () => void }) => event.preventDefault();
