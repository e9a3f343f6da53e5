package transport

// recvOrClosed takes the next Message from ch, or ErrClosed once done is
// closed: the Recv of a server's session, whose messages come from POSTs.
func recvOrClosed(ch <-chan Message, done <-chan struct{}) (Message, error) {
	select {
	case m := <-ch:
		return m, nil
	case <-done:
		return Message{}, ErrClosed
	}
}

// isShut reports whether done is closed, without waiting.
func isShut(done <-chan struct{}) bool {
	select {
	case <-done:
		return true
	default:
		return false
	}
}
